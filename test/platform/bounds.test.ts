import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsTooDeep, unstorablePart } from '../../src/platform/http/json.js';
import { testPlatform } from '../helpers/platform.js';

/** `{"metadata":{"k":{"k":…}}}` nested `depth` levels deep in all (the body's own object counts as one). */
function nestedMetadata(depth: number, leaf = '"v"'): string {
  return `{"metadata":${'{"k":'.repeat(depth - 2)}{"k":${leaf}}${'}'.repeat(depth - 2)}}`;
}

describe('JSON nesting (docs/api.md, "Bounds on what clients send": at most 64 levels)', () => {
  it('parses 64 levels and refuses 65 with 400 invalid_request, changing nothing', async () => {
    const t = await testPlatform();
    const path = `/users/${t.ownerId}`;
    // 64 levels are parsed: the schema then refuses a nested metadata value (422), as it would at any depth.
    const at = await t.call('PATCH', path, { body: nestedMetadata(64) });
    expect(at.status).toBe(422);
    const over = await t.call('PATCH', path, { body: nestedMetadata(65) });
    expect(over.status).toBe(400);
    expect(over.body.error).toEqual({
      code: 'invalid_request',
      message: 'the request body nests deeper than 64 levels',
      status: 400,
      requestId: over.headers.get('x-request-id'),
    });
    // Thousands of levels (once a stack overflow and a 500) are refused the same way, arrays as objects.
    for (const body of [nestedMetadata(7000), `{"metadata":${'['.repeat(7000)}${']'.repeat(7000)}}`]) {
      expect((await t.call('PATCH', path, { body })).status).toBe(400);
    }
    expect((await t.call('GET', path)).body.metadata).toEqual({});
  });

  it('does not count brackets inside strings, escaped quotes included', async () => {
    const t = await testPlatform();
    const value = `\\"${'['.repeat(100)}{`;
    const r = await t.call('PATCH', `/users/${t.ownerId}`, { body: `{"metadata":{"k":"${value}"}}` });
    expect(r.status).toBe(200);
    expect(r.body.metadata).toEqual({ k: `"${'['.repeat(100)}{` });
    expect(nestsTooDeep(`["\\\\", ${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}]`)).toBe(true);
    expect(nestsTooDeep(`["\\"", ${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}]`)).toBe(false);
  });

  it('finds a "__proto__" key at any depth the bound allows, and reports its whole path', async () => {
    const t = await testPlatform();
    // 64 levels in all: the innermost object holds the key.
    const body = nestedMetadata(MAX_JSON_DEPTH - 1, '{"ok":1,"__proto__":"x"}');
    const r = await t.call('PATCH', `/users/${t.ownerId}`, { body });
    expect(r.status).toBe(422);
    const field = ['metadata', ...Array(MAX_JSON_DEPTH - 2).fill('k'), '__proto__'].join('.');
    expect(r.body.error.details).toEqual([{ field, message: '"__proto__" cannot be used as a key' }]);
    const pathOf = (json: string) => unstorablePart(JSON.parse(json))?.path;
    expect(pathOf('{"a":[{"b":1},{"c":{"__proto__":2}}]}')).toBe('a.1.c.__proto__');
    expect(pathOf('{"a":[{"b":1}],"__proto__":{}}')).toBe('__proto__');
    expect(unstorablePart({ a: [1, 'x', null, { b: {} }] })).toBeUndefined();
    // Text neither backend can keep as sent: a NUL, half of a surrogate pair (in a value or a key).
    expect(pathOf('{"a":{"b":["ok","x\\u0000y"]}}')).toBe('a.b.1');
    expect(pathOf('{"name":"\\ud800"}')).toBe('name');
    expect(pathOf('{"m":{"k\\udc00":1}}')).toBe('m.k\udc00');
    expect(unstorablePart({ name: 'emoji 😀 and é' })).toBeUndefined();
  });
});

describe('URL length (414)', () => {
  it('refuses a path and query over 8 KiB with 414 and the envelope', async () => {
    const t = await testPlatform();
    const r = await t.call('GET', `/organizations/${t.orgId}/users?search=${'a'.repeat(8 * 1024)}`);
    expect(r.status).toBe(414);
    expect(r.body.error).toMatchObject({ code: 'invalid_request', message: 'URL too long (limit 8 KiB)', status: 414 });
  });
});
