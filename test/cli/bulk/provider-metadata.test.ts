import { describe, expect, it } from 'vitest';
import { Metadata } from '../../../src/cli/bulk/providers/fields.js';

// The metadata a user brings from another system (docs/migrate.md, "Metadata"): within the platform's bounds
// (contract/common.ts, metadataPatchSchema: keys of 40 characters, text of 500, 50 keys), and never a secret.

describe("another system's metadata", () => {
  it('keeps scalars as they are and lists or objects as JSON text, under a prefix', () => {
    const m = new Metadata('auth0').set('auth0UserId', 'auth0|1').copy('app', {
      plan: 'gold',
      seats: 3,
      trial: false,
      roles: ['admin', 'billing'],
      address: { city: 'Paris' },
      none: null,
    });
    expect(m.value).toEqual({
      importedFrom: 'auth0',
      auth0UserId: 'auth0|1',
      'app.plan': 'gold',
      'app.seats': 3,
      'app.trial': false,
      'app.roles': '["admin","billing"]',
      'app.address': '{"city":"Paris"}',
    });
  });

  it('leaves out secrets, by their key or inside a value, and what is over the bounds', () => {
    const m = new Metadata('clerk').copy('private', {
      stripe_api_key: 'sk_live_x',
      password: 'x',
      totpSecret: 'x',
      refresh_token: 'x',
      password_hash: 'x',
      integrations: { github: { token: 'ghp_x' } },
      [`k${'x'.repeat(40)}`]: 'a key too long',
      long: 'y'.repeat(501),
      nan: Number.NaN,
      fine: 'kept',
    });
    expect(m.value).toEqual({ importedFrom: 'clerk', 'private.fine': 'kept' });
    const many = new Metadata('cognito').copy(
      'custom',
      Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`a${i}`, i])),
    );
    expect(Object.keys(many.value)).toHaveLength(50);
    expect(many.value['custom.a48']).toBe(48);
    expect(many.value['custom.a49']).toBeUndefined();
  });
});
