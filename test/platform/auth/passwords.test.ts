import { describe, expect, it } from 'vitest';
import { passwordProblem } from '../../../src/contract/passwords.js';
import {
  generatePassword,
  hashPassword,
  hashPasswordSync,
  verifyAgainstDummy,
  verifyPassword,
} from '../../../src/platform/auth/passwords.js';
import { fixedClock, sequentialIds } from '../../../src/platform/clock.js';
import { PlatformError } from '../../../src/platform/errors.js';
import { createPlatform } from '../../../src/platform/index.js';
import { bootstrap } from '../../../src/platform/operations/bootstrap.js';
import { testDatabase } from '../../helpers/backend.js';
import { baseOf } from '../../helpers/internals.js';

describe('passwords', () => {
  it('are hashed with scrypt at OWASP cost (N=2^17, r=8, p=1) in PHC form, salted, and verified', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(hash).toMatch(/^\$scrypt\$ln=17,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await hashPassword('correct horse battery staple', { ln: 4, r: 8, p: 1 })).not.toBe(hash);
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', hash)).toBe(false);
  });

  it('compare in Unicode NFKC, so the same password typed differently matches', async () => {
    const hash = await hashPassword('ﬁve boxing wizards jump', { ln: 4, r: 8, p: 1 });
    expect(await verifyPassword('five boxing wizards jump', hash)).toBe(true);
  });

  it('refuse malformed hashes and costs that would stall the server', async () => {
    const cheap = hashPasswordSync('some long password here', { ln: 4, r: 8, p: 1 });
    expect(await verifyPassword('some long password here', cheap)).toBe(true);
    expect(await verifyPassword('some long password here', cheap.replace('ln=4', 'ln=30'))).toBe(false);
    expect(await verifyPassword('x', '')).toBe(false);
    expect(await verifyPassword('x', 'plaintext')).toBe(false);
    expect(await verifyAgainstDummy('anything at all')).toBe(false);
  });

  it('must be 15 to 256 characters', () => {
    expect(passwordProblem('fourteen chars')).toBe('must be at least 15 characters');
    expect(passwordProblem('fifteen chars!!')).toBeUndefined();
    expect(passwordProblem('x'.repeat(257))).toBe('must be at most 256 characters');
    expect(generatePassword()).toMatch(/^[A-Za-z0-9]{24}$/);
  });
});

describe('bootstrap()', () => {
  const platform = async () =>
    createPlatform({
      ...(await testDatabase()),
      clock: fixedClock(),
      ids: sequentialIds(),
      logger: () => {},
      limits: { enabled: false },
    });

  it('generates the owner a password, returned once, when none is given', async () => {
    const p = await platform();
    const r = await bootstrap(baseOf(p), { email: 'admin@localhost' });
    expect(r.password).toMatch(/^[A-Za-z0-9]{24}$/);
    const stored = (await baseOf(p).stores.users.accountById(r.userId))?.passwordHash as string;
    expect(await verifyPassword(r.password as string, stored)).toBe(true);
    // A second organization for the same account keeps its password.
    expect((await bootstrap(baseOf(p), { email: 'admin@localhost', orgName: 'Two' })).password).toBeNull();
    expect((await baseOf(p).stores.users.accountById(r.userId))?.passwordHash).toBe(stored);
  });

  it('takes the password given (plat local init --password), at full cost, or refuses a weak one', async () => {
    const p = await platform();
    const r = await bootstrap(baseOf(p), { password: 'the chosen init password' });
    expect(r.password).toBeNull();
    const stored = (await baseOf(p).stores.users.accountById(r.userId))?.passwordHash as string;
    expect(stored).toMatch(/^\$scrypt\$ln=17,/);
    expect(await verifyPassword('the chosen init password', stored)).toBe(true);
    await expect(bootstrap(baseOf(await platform()), { password: 'short' })).rejects.toThrow(PlatformError);
  });
});
