import { apiPath } from '../../contract/endpoint.js';
import { oauth } from '../../contract/endpoints/auth.js';
import { PASSWORD_MIN, passwordProblem } from '../../contract/passwords.js';
import type { BaseCtx } from '../context.js';
import type { PageCall } from '../http/page.js';
import { acceptInvitation, openInvitation } from '../operations/auth-invitation.js';
import { csrfToken, csrfValid } from './csrf.js';
import { type Html, pageHeaders } from './html.js';
import { invitationPage, messagePage } from './pages.js';
import { checkFormPassword } from './password-form.js';
import { hashPassword } from './passwords.js';
import { bodyParams, queryParams } from './request.js';

const ACTION = apiPath(oauth.acceptInvitation);
const DEAD_LINK =
  'This invitation link is no longer valid: it was used, replaced by a newer one, revoked or has expired. Ask for a new invitation.';

function page(c: PageCall, status: number, body: Html, extra: Record<string, string> = {}) {
  return c.html(body.value, status as 200, { ...pageHeaders(), ...extra });
}

async function view(ctx: BaseCtx, token: string) {
  const inv = await openInvitation(ctx, token);
  if (!inv) return undefined;
  const account = await ctx.stores.users.accountById(inv.userId);
  const organization = await ctx.stores.organizations.get(inv.organizationId);
  if (!account || !organization) return undefined;
  // A password another organization imported is not the person's to show here: they choose one (the link proves the
  // e-mail is theirs), and it replaces the imported one (docs/migrate.md).
  const imported = account.passwordImportedBy !== null && account.passwordImportedBy !== inv.organizationId;
  return { inv, hasPassword: account.passwordHash !== null && !imported, organizationName: organization.name };
}

/** `GET {auth_url}/invitations/accept?token=…`: the page that sets the name and the password. */
export async function invitationPageGet(ctx: BaseCtx, c: PageCall) {
  const token = queryParams(c).get('token') ?? '';
  const v = await view(ctx, token);
  if (!v) return page(c, 404, messagePage('Invitation not found', DEAD_LINK, 'alert'));
  const body = invitationPage({
    action: ACTION,
    csrf: csrfToken(ctx, c),
    token,
    email: v.inv.email,
    organizationName: v.organizationName,
    name: v.inv.name,
    hasPassword: v.hasPassword,
    minLength: PASSWORD_MIN,
  });
  return page(c, 200, body);
}

/**
 * `POST {auth_url}/invitations/accept`: a new account sets its password; an account that has one already proves it
 * knows it (the link alone must not replace a password). Then the user is `active` and `emailVerified`.
 */
export async function invitationPageSubmit(ctx: BaseCtx, c: PageCall) {
  const params = await bodyParams(c);
  const token = params?.get('token') ?? '';
  const v = await view(ctx, token);
  if (!params || !v) return page(c, 404, messagePage('Invitation not found', DEAD_LINK, 'alert'));
  const name = (params.get('name') ?? '').trim();
  const password = params.get('password') ?? '';
  const form = (status: number, error: string, extra: Record<string, string> = {}) =>
    page(
      c,
      status,
      invitationPage({
        action: ACTION,
        csrf: csrfToken(ctx, c),
        token,
        email: v.inv.email,
        organizationName: v.organizationName,
        name: name || v.inv.name,
        hasPassword: v.hasPassword,
        minLength: PASSWORD_MIN,
        error,
      }),
      extra,
    );
  if (!csrfValid(c, params.get('csrf'))) return form(403, 'This form has expired. Please try again.');
  if (name === '' || name.length > 100) return form(400, 'Enter your name (at most 100 characters).');
  let passwordHash: string | null = null;
  if (v.hasPassword) {
    const result = await checkFormPassword(ctx, c, v.inv.email, password);
    if (!result.ok && result.reason === 'locked') {
      const after = String(result.retryAfter);
      return form(429, `Too many failed attempts. Try again in ${after} seconds.`, { 'Retry-After': after });
    }
    if (!result.ok) return form(401, 'Incorrect password.');
  } else {
    const problem = passwordProblem(password);
    if (problem) return form(400, `The password ${problem}.`);
    if (params.get('confirm') !== password) return form(400, 'The two passwords differ.');
    passwordHash = await hashPassword(password);
  }
  const accepted = await acceptInvitation(ctx, { token, name, passwordHash });
  if (!accepted) return page(c, 404, messagePage('Invitation not found', DEAD_LINK, 'alert'));
  const message = `You are now a member of ${v.organizationName}. Sign in with “plat login”.`;
  return page(c, 200, messagePage('Welcome', message));
}
