import type { Organization } from '../../contract/organizations.js';
import { type Html, html, layout } from './html.js';

/** Hidden fields that carry a request through a form (the authorization request's parameters). */
export type Hidden = Record<string, string | undefined>;

function hiddenFields(hidden: Hidden): Html[] {
  return Object.entries(hidden)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`);
}

function errorBox(error: string | undefined): Html | undefined {
  return error ? html`<p class="error" role="alert" id="error">${error}</p>` : undefined;
}

/**
 * The sign-in form, e-mail first (docs/sso.md): step `email` asks for the e-mail only, which may lead to the
 * organization's identity provider; step `password` asks for the password of that e-mail. Both post back to `action`
 * with the CSRF token and the request's fields. `passwordLink` (step `email`) goes straight to the password step: the
 * way owners of an organization with single sign-on still sign in when its identity provider is down.
 */
export function loginPage(p: {
  action: string;
  csrf: string;
  hidden: Hidden;
  clientName: string;
  step: 'email' | 'password';
  email?: string;
  error?: string;
  passwordLink?: string;
}): Html {
  const password =
    p.step === 'password'
      ? html`<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>`
      : html`<button type="submit">Continue</button>`;
  const link =
    p.step === 'email' && p.passwordLink
      ? html`<p class="note"><a href="${p.passwordLink}">Sign in with a password instead</a></p>`
      : undefined;
  return layout(
    'Sign in',
    html`<p class="note">to continue to ${p.clientName}</p>
${errorBox(p.error)}
<form method="post" action="${p.action}">
<input type="hidden" name="csrf" value="${p.csrf}">
${hiddenFields(p.hidden)}
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${p.email ?? ''}">
${password}
</form>
${link}`,
  );
}

/**
 * On to the organization's identity provider after a form: a page that moves on by itself (a refresh, no script) with
 * a link in case it does not. Not a redirect: browsers hold a redirect that follows a form to the page's CSP
 * `form-action`, which cannot know every identity provider in advance.
 */
export function identityProviderPage(url: string): Html {
  return layout(
    'Continue to sign in',
    html`<p role="status" id="message">Signing you in through your organization's identity provider…</p>
<p><a id="continue" href="${url}">Continue</a></p>`,
    html`<meta http-equiv="refresh" content="0;url=${url}">`,
  );
}

/** After sign-in, for a user of several organizations: which one the session is for. */
export function organizationPage(p: {
  action: string;
  csrf: string;
  hidden: Hidden;
  ticket: string;
  organizations: readonly Organization[];
  error?: string;
}): Html {
  const options = p.organizations.map(
    (o, i) =>
      html`<div class="choice"><input type="radio" id="org-${i}" name="org" value="${o.id}" required${i === 0 ? html` checked` : ''}>
<label for="org-${i}">${o.name}</label></div>`,
  );
  return layout(
    'Choose an organization',
    html`${errorBox(p.error)}
<form method="post" action="${p.action}">
<input type="hidden" name="csrf" value="${p.csrf}">
<input type="hidden" name="ticket" value="${p.ticket}">
${hiddenFields(p.hidden)}
<fieldset>
<legend>Organization to sign in to</legend>
${options}
</fieldset>
<button type="submit">Continue</button>
</form>`,
  );
}

/** A page that only says something: an error the client cannot be told about, or a result. */
export function messagePage(title: string, message: string, role: 'alert' | 'status' = 'status'): Html {
  return layout(title, html`<p role="${role}" id="message">${message}</p>`);
}

/** The device page (RFC 8628): the code shown on the terminal, and the sign-in that approves or denies it. */
export function devicePage(p: {
  action: string;
  csrf: string;
  userCode?: string;
  email?: string;
  error?: string;
}): Html {
  return layout(
    'Connect a device',
    html`<p class="note">Enter the code shown on your terminal, then sign in to approve it.</p>
${errorBox(p.error)}
<form method="post" action="${p.action}">
<input type="hidden" name="csrf" value="${p.csrf}">
<label for="user_code">Code</label>
<input id="user_code" name="user_code" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false"
 required value="${p.userCode ?? ''}">
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" value="${p.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" aria-describedby="password-hint">
<p class="note" id="password-hint">Leave it empty if your organization signs you in through its identity provider.</p>
<button type="submit" name="action" value="approve">Approve</button>
<button type="submit" name="action" value="deny" formnovalidate>Deny</button>
</form>`,
  );
}

/** The invitation page: the name, and a new password (or the account's password when it already has one). */
export function invitationPage(p: {
  action: string;
  csrf: string;
  token: string;
  email: string;
  organizationName: string;
  name: string | null;
  hasPassword: boolean;
  minLength: number;
  error?: string;
}): Html {
  const password = p.hasPassword
    ? html`<label for="password">Your password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>`
    : html`<label for="password">Choose a password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${p.minLength}"
 aria-describedby="password-hint">
<p class="note" id="password-hint">At least ${p.minLength} characters.</p>
<label for="confirm">Repeat the password</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" required>`;
  return layout(
    `Join ${p.organizationName}`,
    html`<p class="note">Invitation for ${p.email}</p>
${errorBox(p.error)}
<form method="post" action="${p.action}">
<input type="hidden" name="csrf" value="${p.csrf}">
<input type="hidden" name="token" value="${p.token}">
<input type="email" name="username" autocomplete="username" value="${p.email}" hidden readonly>
<label for="name">Your name</label>
<input id="name" name="name" type="text" autocomplete="name" required maxlength="100" value="${p.name ?? ''}">
${password}
<button type="submit">Accept the invitation</button>
</form>`,
  );
}
