import { describe, expect, it } from 'vitest';
import { AuthError } from '../../src/auth/errors.js';
import { InvalidValueError, toFailure, UsageError } from '../../src/cli/errors.js';
import { ApiError, NetworkError } from '../../src/client/errors.js';
import { UsageError as ConfigUsageError } from '../../src/config/errors.js';

// Every layer's errors carry their kind; the CLI maps kinds to exit codes in one table (docs/cli-reference.md, "Exit codes").

const api = (status: number, extra: Partial<ConstructorParameters<typeof ApiError>[0]> = {}) =>
  new ApiError({
    status,
    code: 'x',
    message: `status ${status}`,
    requestId: 'req_1',
    retries: 0,
    body: null,
    ...extra,
  });

describe('toFailure', () => {
  it("maps each layer's errors to the contract's exit codes by their kind", () => {
    const cases: [unknown, number][] = [
      [new UsageError('cli usage'), 2],
      [new ConfigUsageError('unknown profile'), 2],
      [new AuthError('unauthenticated', 'refresh failed'), 3],
      [api(403), 4],
      [api(404), 5],
      [api(409), 6],
      [api(422), 7],
      [new InvalidValueError('bad value'), 7],
      [api(429), 8],
      [new NetworkError('unreachable', { cause: null, retries: 2 }), 9],
      [new AuthError('network', 'cannot reach'), 9],
      [api(500), 1],
    ];
    for (const [err, code] of cases) expect(toFailure(err).exitCode, String(err)).toBe(code);
  });

  it('classes what says no kind, or one the table does not know, as unexpected (exit 1): never by name', () => {
    const named = Object.assign(new Error('looks like one'), { name: 'UsageError' });
    const bogus = Object.assign(new Error('odd kind'), { kind: 'bogus' });
    const notAnError = { kind: 'usage', message: 'plain object' };
    for (const err of [new Error('bug'), named, bogus, notAnError, 'a string']) {
      const f = toFailure(err);
      expect(f.exitCode).toBe(1);
      expect(f.json.error.code).toBe('internal_error');
    }
  });

  it("writes an API answer's details, retries and request id, and keeps its envelope for --json", () => {
    const envelope = { code: 'validation_error', message: 'invalid body', status: 422, requestId: 'req_9' };
    const f = toFailure(
      api(422, { message: 'invalid body', details: [{ field: 'email', message: 'required' }], body: envelope }),
    );
    expect(f.message).toBe('invalid body [request req_1]\n  email: required');
    expect(f.json).toEqual({ error: envelope });
    expect(toFailure(api(429, { message: 'slow down', retries: 2 })).message).toBe(
      'slow down (still rate limited after 2 retries) [request req_1]',
    );
  });
});
