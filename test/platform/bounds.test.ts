import { describe, expect, it } from 'vitest';
import { testPlatform } from '../helpers/platform.js';

describe('URL length (414)', () => {
  it('refuses a path and query over 8 KiB with 414 and the envelope', async () => {
    const t = testPlatform();
    const r = await t.call('GET', `/organizations/${t.orgId}/users?search=${'a'.repeat(8 * 1024)}`);
    expect(r.status).toBe(414);
    expect(r.body.error).toMatchObject({ code: 'invalid_request', message: 'URL too long (limit 8 KiB)', status: 414 });
  });
});
