// Every test's `fetch` of the platform is checked against its OpenAPI document (helpers/conformance.ts): the
// exchanges tests make over real sockets with the global `fetch` too (openapi-fetch's among them), not only those
// through `send` and `testPlatform`. Requests to anything but the platform (identity providers, a client's redirect
// URI) pass unchecked. A request body is checked only when the server took the request (see `readIfTaken`).
import { bodyOf, checkExchange, documentPath, readIfTaken } from '../helpers/conformance.js';

const original = globalThis.fetch;

globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const url = input instanceof Request ? input.url : String(input);
  if (documentPath(new URL(url).pathname) === undefined) return original(input, init);
  // The request as `fetch` sends it (init over the Request's own), read without consuming what is sent.
  const streamed = init?.body instanceof ReadableStream;
  const request =
    input instanceof Request && init === undefined
      ? input.clone()
      : new Request(input instanceof Request ? input.clone() : input, streamed ? { ...init, body: null } : init);
  const reading = streamed ? undefined : bodyOf(request);
  const response = await original(input, init);
  await checkExchange(
    {
      method: request.method,
      url,
      requestType: request.headers.get('content-type'),
      requestBody: await readIfTaken(reading, response),
    },
    response,
  );
  return response;
};
