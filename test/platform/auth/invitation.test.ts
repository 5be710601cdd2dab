import { describe, expect, it } from 'vitest';
import { baseOf } from '../../helpers/internals.js';
import { type AuthTestPlatform, authorizePlatform, FormBrowser, formFields, tokensFor } from './helpers.js';

const NEW_PASSWORD = 'a brand new passphrase';

/** Invites `email` through the API and returns the link of the e-mail. */
async function invite(
  t: AuthTestPlatform,
  email: string,
  orgId = t.orgId,
  key?: string,
): Promise<{ link: string; userId: string }> {
  const r = await t.call('POST', `/organizations/${orgId}/users`, {
    body: { email, name: 'Nina New', role: 'member' },
    key,
  });
  expect(r.status).toBe(201);
  const mail = (await baseOf(t.platform).stores.outbox.list({ to: email })).at(-1);
  const link = mail?.links[0] as string;
  expect(link).toMatch(/^http:\/\/plat\.test\/v2\/auth\/invitations\/accept\?token=[A-Za-z0-9_-]+$/);
  return { link, userId: r.body.userId };
}

describe('the invitation acceptance page', () => {
  it('sets the name and a password, making the user active with a verified e-mail', async () => {
    const t = await authorizePlatform();
    const { link, userId } = await invite(t, 'nina@acme.test');
    const browser = new FormBrowser(t.fetch);
    const page = await browser.get(link);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.text).toContain('<h1>Join Acme</h1>');
    expect(page.text).toContain('<label for="name">Your name</label>');
    expect(page.text).toContain('<label for="password">Choose a password</label>');
    expect(page.text).toContain('<label for="confirm">Repeat the password</label>');
    expect(page.text).toContain('value="Nina New"');
    const fields = formFields(page.text);
    const post = (extra: Record<string, string>) =>
      browser.post(`${new URL(link).origin}/v2/auth/invitations/accept`, { ...fields, name: 'Nina N.', ...extra });

    const short = await post({ password: 'too short', confirm: 'too short' });
    expect(short.status).toBe(400);
    expect(short.text).toContain('The password must be at least 15 characters.');
    const differ = await post({ password: NEW_PASSWORD, confirm: `${NEW_PASSWORD}!` });
    expect(differ.text).toContain('The two passwords differ.');
    const noCsrf = await post({ csrf: '', password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    expect(noCsrf.status).toBe(403);
    expect((await t.call('GET', `/users/${userId}`)).body.status).toBe('pending');

    const done = await post({ password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    expect(done.status).toBe(200);
    expect(done.text).toContain('You are now a member of Acme.');
    const user = await t.call('GET', `/users/${userId}`);
    expect(user.body).toMatchObject({ status: 'active', emailVerified: true, name: 'Nina N.' });
    const invitations = await t.call('GET', `/organizations/${t.orgId}/invitations`);
    expect(invitations.body.data[0].status).toBe('accepted');
    const stored = (await baseOf(t.platform).stores.users.accountById(userId))?.passwordHash;
    expect(stored).toMatch(/^\$scrypt\$ln=17,r=8,p=1\$/);
    expect(stored).not.toContain(NEW_PASSWORD);

    const tokens = await tokensFor(t, { email: 'nina@acme.test', password: NEW_PASSWORD });
    expect(tokens.scope).toContain('projects:read');
    const again = await new FormBrowser(t.fetch).get(link);
    expect(again.status).toBe(404);
    expect(again.text).toContain('This invitation link is no longer valid');
  });

  it('asks an account that already has a password for it, and never replaces it', async () => {
    const t = await authorizePlatform();
    const other = await t.call('POST', '/organizations', { body: { name: 'Beta' } });
    const userId = await t.addUser({ email: 'sam@acme.test', password: 'sam has a long password' });
    const { link } = await invite(t, 'sam@acme.test', other.body.id);
    const browser = new FormBrowser(t.fetch);
    const page = await browser.get(link);
    expect(page.text).toContain('<label for="password">Your password</label>');
    expect(page.text).not.toContain('Repeat the password');
    const action = `${new URL(link).origin}/v2/auth/invitations/accept`;
    const wrong = await browser.post(action, { ...formFields(page.text), name: 'Sam', password: NEW_PASSWORD });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('Incorrect password.');
    const ok = await browser.post(action, {
      ...formFields(page.text),
      name: 'Sam',
      password: 'sam has a long password',
    });
    expect(ok.text).toContain('You are now a member of Beta.');
    const member = await t.call('GET', `/users/${userId}`, { headers: { 'X-Org-Id': other.body.id } });
    expect(member.body).toMatchObject({ status: 'active', name: 'Sam' });
    await tokensFor(t, { email: 'sam@acme.test', password: 'sam has a long password', extra: { org: other.body.id } });
  });

  it('shows a dead link for an unknown, revoked or resent token', async () => {
    const t = await authorizePlatform();
    const { link } = await invite(t, 'rita@acme.test');
    expect((await new FormBrowser(t.fetch).get(`${link}x`)).status).toBe(404);
    const inv = (await t.call('GET', `/organizations/${t.orgId}/invitations`)).body.data[0];
    expect((await t.call('POST', `/invitations/${inv.id}/resend`)).status).toBe(200);
    const dead = await new FormBrowser(t.fetch).get(link);
    expect(dead.status).toBe(404);
    expect(dead.text).toContain('role="alert"');
  });
});
