// Every test's `fetch` of the platform is checked against its OpenAPI document (helpers/conformance.ts): the
// exchanges tests make over real sockets with the global `fetch` too, not only those through `send` and
// `testPlatform`. Requests to anything but the platform's `/v2/` (identity providers, a client's redirect URI) pass
// unchecked. A request body is read for the check only when it was given as text or a form, never a stream (a test
// may send one slowly on purpose).
import { checkExchange } from '../helpers/conformance.js';

const original = globalThis.fetch;

/** The text of a body given as text or a form, else undefined. */
function textOf(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  return undefined;
}

globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const response = await original(input, init);
  const request = input instanceof Request ? input : undefined;
  const url = request ? request.url : String(input);
  if (!new URL(url).pathname.startsWith('/v2/')) return response;
  const headers = new Headers(init?.headers ?? request?.headers);
  const form = init?.body instanceof URLSearchParams ? 'application/x-www-form-urlencoded' : null;
  await checkExchange(
    {
      method: (init?.method ?? request?.method ?? 'GET').toUpperCase(),
      url,
      requestType: headers.get('content-type') ?? form,
      requestBody: textOf(init?.body),
    },
    response,
  );
  return response;
};
