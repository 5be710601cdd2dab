import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, processHome, servePlat } from '../helpers/spawn.js';

afterAll(cleanUpProcesses);

let base: string;
let log: () => string;
beforeAll(async () => {
  const server = await servePlat(processHome('plat-serve-bounds'));
  base = server.url;
  log = server.log;
});

/** The envelope every error carries, with the request id of the `X-Request-Id` header. */
function envelope(status: number, message: string, requestId: string | null | undefined) {
  expect(requestId).toMatch(/^req_[0-9A-Za-z]{20}$/);
  return { error: { code: 'invalid_request', message, status, requestId } };
}

/**
 * POSTs a chunked body of `total` bytes of JSON whitespace, 64 KiB at a time and only as fast as the server takes
 * them, stopping as soon as an answer arrives; resolves with the answer and how much had been sent by then.
 */
function chunkedUpload(path: string, total: number) {
  return new Promise<{ status: number; requestId: unknown; body: unknown; sentWhenAnswered: number }>(
    (resolve, reject) => {
      const req = request(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
      const chunk = Buffer.alloc(64 * 1024, ' ');
      let sent = 0;
      let answered = false;
      req.on('response', (res) => {
        answered = true;
        const sentWhenAnswered = sent;
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            requestId: res.headers['x-request-id'],
            body: JSON.parse(text),
            sentWhenAnswered,
          }),
        );
        res.on('error', reject);
      });
      // Once it has answered, the server closes the connection: the writes still under way fail, as they should.
      req.on('error', (err) => {
        if (!answered) reject(err);
      });
      const pump = () => {
        while (!answered && sent < total) {
          sent += chunk.length;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        if (!answered) req.end();
      };
      pump();
    },
  );
}

const nested = (depth: number) => `{"refreshToken":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

describe('plat serve bounds what strangers send (contract §2)', () => {
  it('answers a chunked upload 413 once it passes 1 MiB, while the client is still sending, on every route', async () => {
    const total = 50 * 1024 * 1024;
    // No credentials needed: the refresh endpoint and a sign-in form page, and an API route.
    for (const path of ['/v2/auth/refresh', '/v2/auth/authorize', '/v2/organizations/org_x/users']) {
      const r = await chunkedUpload(path, total);
      expect(r.status, path).toBe(413);
      expect(r.body).toEqual(envelope(413, 'request body too large (limit 1 MiB)', r.requestId as string));
      // The server answered from what it had read, not after reading (or holding) the whole upload.
      expect(r.sentWhenAnswered, path).toBeLessThan(total);
    }
  });

  it('answers JSON nested deeper than 64 levels 400, without a 500, the auth endpoints included', async () => {
    const refresh = await fetch(`${base}/v2/auth/refresh`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: nested(7000),
    });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toEqual(
      envelope(400, 'the request body nests deeper than 64 levels', refresh.headers.get('x-request-id')),
    );
    // The OAuth token endpoint accepts JSON too, and answers in the RFC 6749 form.
    const token = await fetch(`${base}/v2/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: `{"grant_type":"refresh_token","x":${nested(7000)}}`,
    });
    expect(token.status).toBe(400);
    expect(await token.json()).toEqual({
      error: 'invalid_request',
      error_description: 'the request body nests deeper than 64 levels',
    });
    expect(log()).not.toContain('internal error');
  });
});
