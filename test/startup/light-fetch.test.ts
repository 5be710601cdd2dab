import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LightHeaders, LightRequest, LightResponse } from '../../src/startup/light-fetch.js';

/** Everything a reader can observe of a Headers object. */
const seen = (h: { entries(): IterableIterator<[string, string]>; get(n: string): string | null }) => ({
  entries: [...h.entries()],
  contentType: h.get('Content-Type'),
  cookie: h.get('SET-COOKIE'),
  missing: h.get('x-missing'),
});

describe("plat's light fetch classes behave as Node's for what an in-process call uses", () => {
  const inits: [string, (Classes: { H: any }) => any][] = [
    ['a record', () => ({ 'X-Api-Key': 'k', Accept: 'application/json', 'content-type': 'text/plain' })],
    [
      'pairs',
      () => [
        ['B', '2'],
        ['a', '1'],
        ['b', '3'],
        ['Set-Cookie', 'x=1'],
        ['set-cookie', 'y=2'],
      ],
    ],
    ['another Headers', ({ H }) => new H({ Z: 'z', 'Set-Cookie': 'c=1', a: 'A' })],
  ];

  for (const [what, init] of inits) {
    it(`Headers from ${what}: names case-insensitive, sorted, values combined, set-cookie kept apart`, () => {
      const both = [Headers, LightHeaders].map((H) => {
        const h = new H(init({ H }));
        h.append('X-Multi', 'one');
        h.append('x-multi', 'two');
        h.set('X-Set', 'first');
        h.set('x-set', 'second');
        h.append('Set-Cookie', 'z=3');
        h.delete('x-api-KEY');
        const forEach: string[] = [];
        h.forEach((v: string, k: string) => {
          forEach.push(`${k}=${v}`);
        });
        return { ...seen(h), has: h.has('X-MULTI'), cookies: h.getSetCookie(), forEach, keys: [...h.keys()] };
      });
      expect(both[1]).toEqual(both[0]);
    });
  }

  it('Request: the URL normalized, the method upper-cased, the body read once as text or JSON, a copy', async () => {
    const both = await Promise.all(
      [Request, LightRequest].map(async (R: any) => {
        const r = new R('HTTP://Embedded.Plat/v2/users?q=%C3%A9', {
          method: 'post',
          headers: { 'Content-Type': 'application/json' },
          body: '{"name":"Zoë"}',
        });
        const copy = new R(r.clone(), { method: 'PATCH' });
        const out = { url: r.url, method: r.method, used: r.bodyUsed, json: await r.json(), usedAfter: r.bodyUsed };
        await expect(r.text()).rejects.toThrow(TypeError);
        return { ...out, copy: [copy.method, copy.url, await copy.text(), copy.headers.get('content-type')] };
      }),
    );
    expect(both[1]).toEqual(both[0]);
  });

  it('Response: status and ok, the body as text, JSON or bytes, and a string body typed text/plain', async () => {
    const both = await Promise.all(
      [Response, LightResponse].map(async (R: any) => {
        const json = new R('{"a":1}', { status: 201, headers: { 'Content-Type': 'application/json' } });
        const empty = new R(null, { status: 204 });
        const text = new R('héllo');
        const bytes = new R(new TextEncoder().encode('bytes'), { status: 404, statusText: 'Not Found' });
        const passedOn = new R(json.body, json);
        return {
          json: [json.status, json.ok, await passedOn.json(), [...passedOn.headers]],
          empty: [empty.status, empty.ok, await empty.text(), empty.headers.get('content-type')],
          text: [text.status, await text.text(), text.headers.get('content-type')],
          bytes: [bytes.status, bytes.ok, bytes.statusText, new TextDecoder().decode(await bytes.arrayBuffer())],
        };
      }),
    );
    expect(both[1]).toEqual(both[0]);
  });

  it('and where the standard normalizes or refuses, they do the same', async () => {
    /** What an attempt gives: a value, or the kind of error it throws. */
    const attempt = async (f: () => unknown) => {
      try {
        return { value: await f() };
      } catch (err) {
        return { throws: (err as Error).constructor.name };
      }
    };
    const both = await Promise.all(
      [
        [Headers, Request, Response],
        [LightHeaders, LightRequest, LightResponse],
      ].map(async ([H, R, S]: any[]) => ({
        trimmed: await attempt(() => new H({ a: ' \t padded value \r\n' }).get('a')),
        newline: await attempt(() => new H({ a: 'two\nlines' })),
        nul: await attempt(() => new H().append('a', 'x\0y')),
        notByteString: await attempt(() => new H({ a: 'plat_live_abc…' })),
        latin1: await attempt(() => new H({ a: 'café' }).get('a')),
        methods: ['get', 'post', 'patch', 'Delete', 'PATCH', 'options'].map(
          (m) => new R('http://x/', { method: m }).method,
        ),
        getWithBody: await attempt(() => new R('http://x/', { method: 'GET', body: 'x' })),
        noContentWithBody: await attempt(() => new S('x', { status: 204 })),
        status600: await attempt(() => new S(null, { status: 600 })),
        status199: await attempt(() => new S(null, { status: 199 })),
        cloneAfterRead: await attempt(async () => {
          const r = new S('x');
          await r.text();
          return r.clone();
        }),
        json: await attempt(async () => {
          const r = S.json({ a: [1, 'é'] }, { status: 201 });
          return [r.status, r.headers.get('content-type'), await r.text()];
        }),
        bytes: await attempt(async () => [
          ...new Uint8Array(await new S(new Uint8Array([0xff, 0x00, 0xc3])).arrayBuffer()),
        ]),
        tags: [new H(), new R('http://x/'), new S()].map((o) => Object.prototype.toString.call(o)),
      })),
    );
    expect(both[1]).toEqual(both[0]);
    expect(both[0]?.methods).toEqual(['GET', 'POST', 'patch', 'DELETE', 'PATCH', 'OPTIONS']);
  });

  it('never quotes a refused header value (it may be a secret), naming the header instead', () => {
    for (const value of ['plat_live_secret\nrest', 'plat_live_secret…']) {
      expect(() => new LightHeaders({ 'X-API-Key': value })).toThrow(
        new TypeError('invalid value for the header X-API-Key'),
      );
    }
  });

  it('refuses a body it cannot carry in-process, with a TypeError', () => {
    expect(() => new LightRequest('http://x/', { method: 'POST', body: new Blob(['x']) })).toThrow(TypeError);
    expect(() => new LightResponse({ not: 'a body' })).toThrow(TypeError);
  });

  it('carries a stream endpoint’s answer as a stream, read through .body and never as text', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('id: pos_1\n\n'));
        c.close();
      },
    });
    const res = new LightResponse(stream, { headers: { 'content-type': 'text/event-stream' } });
    await expect(res.text()).rejects.toThrow(TypeError);
    const read = await (res.body as ReadableStream<Uint8Array>).getReader().read();
    expect(new TextDecoder().decode(read.value)).toBe('id: pos_1\n\n');
  });
});

describe('installLightFetch', () => {
  const module = fileURLToPath(new URL('../../dist/startup/light-fetch.js', import.meta.url));
  const probe = (before: string) =>
    spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `${before}; const m = await import(${JSON.stringify(module)});
         const installed = m.installLightFetch();
         console.log(JSON.stringify({ installed, light: new Response('x') instanceof m.LightResponse,
           undici: process.moduleLoadList.some((x) => x.includes('undici')) }));`,
      ],
      { encoding: 'utf8' },
    );

  it("replaces Node's classes in a process that has not used them yet, so Node's HTTP client is never loaded", () => {
    const r = probe('');
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ installed: true, light: true, undici: false });
  });

  it('changes nothing once Node has loaded them, or its fetch(): a process never mixes the two', () => {
    for (const before of ['void new Headers()', "await fetch('data:,x').catch(() => {})"]) {
      const r = probe(before);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout), before).toEqual({ installed: false, light: false, undici: true });
    }
  });
});
