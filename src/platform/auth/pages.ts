import type { Organization } from '../../contract/organizations.js';
import { Html, html, layout } from './html.js';

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
 * What a passkey button hands the browser: the options of a WebAuthn ceremony as JSON (webauthn.ts), an assertion's
 * (`authenticate`) or a new credential's (`register`).
 */
export interface PasskeyPrompt {
  ceremony: 'authenticate' | 'register';
  options: object;
}

/**
 * A passkey button in its form (docs/mfa.md), hidden until the page's script (passkeys.js) shows it — a browser
 * without script or WebAuthn never sees it. The script runs the ceremony with the options of `data-options`, puts
 * the credential's JSON into the hidden `passkey` field and submits the form (by the button `submitter` names).
 */
function passkeyBox(p: { prompt: PasskeyPrompt; label: string; intro?: string; submitter?: string }): Html {
  const submitter = p.submitter ? html` data-submitter="${p.submitter}"` : undefined;
  const options = JSON.stringify(p.prompt.options);
  return html`<div class="passkey" hidden>
${p.intro ? html`<p class="note">${p.intro}</p>` : undefined}
<input type="hidden" name="passkey" value="">
<button type="button" id="passkey-button" data-passkey="${p.prompt.ceremony}" data-options="${options}"${submitter}>
${p.label}</button>
<p class="note" role="status" data-passkey-status></p>
</div>`;
}

/**
 * The sign-in form, e-mail first (docs/sso.md): step `email` asks for the e-mail only, which may lead to the
 * organization's identity provider; step `password` asks for the password of that e-mail. Both post back to `action`
 * with the CSRF token and the request's fields. `passwordLink` (step `email`) goes straight to the password step: the
 * way owners of an organization with single sign-on still sign in when its identity provider is down. With `passkey`
 * (docs/mfa.md), a second form signs in with a discoverable passkey instead, without the e-mail or the password.
 * `purpose` says what the sign-in is for (by default: to continue to the client).
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
  passkey?: PasskeyPrompt;
  purpose?: string;
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
  const passkey = p.passkey
    ? html`<form method="post" action="${p.action}" id="passkey-sign-in">
<input type="hidden" name="csrf" value="${p.csrf}">
${hiddenFields(p.hidden)}
${passkeyBox({ prompt: p.passkey, label: 'Sign in with a passkey', intro: 'Or, without a password:' })}
</form>`
    : undefined;
  return layout(
    'Sign in',
    html`<p class="note">${p.purpose ?? `to continue to ${p.clientName}`}</p>
${errorBox(p.error)}
<form method="post" action="${p.action}">
<input type="hidden" name="csrf" value="${p.csrf}">
${hiddenFields(p.hidden)}
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${p.email ?? ''}">
${password}
</form>
${passkey}${link}`,
    undefined,
    p.passkey !== undefined,
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
    html`<p role="status" id="message">Signing you in through your organization's identity provider&hellip;</p>
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

/**
 * The device page (RFC 8628): the code shown on the terminal, and the sign-in that approves or denies it — by e-mail
 * and password, or (`passkey`, docs/mfa.md) with a discoverable passkey.
 */
export function devicePage(p: {
  action: string;
  csrf: string;
  userCode?: string;
  email?: string;
  error?: string;
  passkey?: PasskeyPrompt;
}): Html {
  const passkey = p.passkey
    ? passkeyBox({
        prompt: p.passkey,
        label: 'Approve with a passkey',
        intro: 'Or, without a password:',
        submitter: 'approve',
      })
    : undefined;
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
<button type="submit" name="action" value="approve" id="approve">Approve</button>
<button type="submit" name="action" value="deny" formnovalidate>Deny</button>
${passkey}
</form>`,
    undefined,
    p.passkey !== undefined,
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

/** The fields every step after the password carries: the CSRF token, the ticket of the step, the request's fields. */
function stepFields(p: { csrf: string; ticket: string; hidden: Hidden }): Html {
  return html`<input type="hidden" name="csrf" value="${p.csrf}">
<input type="hidden" name="ticket" value="${p.ticket}">
${hiddenFields(p.hidden)}`;
}

/**
 * The second factor (docs/mfa.md): one of the person's passkeys (`passkey`), a code from the authenticator app
 * (`app`: they have one), or one of the recovery codes.
 */
export function factorPage(p: {
  action: string;
  csrf: string;
  hidden: Hidden;
  ticket: string;
  app: boolean;
  passkey?: PasskeyPrompt;
  error?: string;
}): Html {
  const codes = p.app
    ? 'the code your authenticator app shows, or one of your recovery codes.'
    : 'one of your recovery codes.';
  const passkey = p.passkey
    ? html`<form method="post" action="${p.action}" id="passkey-factor">
${stepFields(p)}
${passkeyBox({ prompt: p.passkey, label: 'Use a passkey' })}
</form>`
    : undefined;
  return layout(
    'Two-step verification',
    html`<p class="note">${p.passkey ? `Use your passkey, or enter ${codes}` : `Enter ${codes}`}</p>
${errorBox(p.error)}
${passkey}
<form method="post" action="${p.action}">
${stepFields(p)}
<label for="code">Code</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" spellcheck="false" required
 autofocus>
<button type="submit">Verify</button>
</form>`,
    undefined,
    p.passkey !== undefined,
  );
}

/**
 * Enrolment (docs/mfa.md) — at sign-in, when the organization (`organizationName`) requires a second factor and the
 * person has none, or asked for on the factors page (`organizationName` null): a passkey (`passkey`), or the
 * authenticator app's QR code (inline SVG: no image request) and its secret to type, then a first code.
 */
export function enrollPage(p: {
  action: string;
  csrf: string;
  hidden: Hidden;
  ticket: string;
  organizationName: string | null;
  factorId: string;
  secret: string;
  otpauthUri: string;
  qrSvg: string;
  passkey?: PasskeyPrompt;
  error?: string;
}): Html {
  const passkey = p.passkey
    ? html`<form method="post" action="${p.action}" id="passkey-enroll">
${stepFields(p)}
<input type="hidden" name="factor_id" value="${p.factorId}">
${passkeyBox({
  prompt: p.passkey,
  label: 'Set up a passkey',
  intro: 'Use a passkey: your fingerprint, face or screen lock, or a security key.',
})}
</form>`
    : undefined;
  const why =
    p.organizationName === null
      ? 'You will be asked for it, after your password, each time you sign in.'
      : `${p.organizationName} requires a second factor.`;
  return layout(
    p.organizationName === null ? 'Add a second factor' : 'Set up two-step verification',
    html`<p class="note">${why}</p>
${errorBox(p.error)}
${passkey}
<p class="note">Scan this code with an authenticator app, then enter the code it shows.</p>
<div id="qr" role="img" aria-label="QR code of the authenticator app's secret">${new Html(p.qrSvg)}</div>
<p class="note">Or enter the secret by hand: <code id="secret">${p.secret}</code></p>
<p class="note"><a id="otpauth" href="${p.otpauthUri}">Open in an authenticator app on this device</a></p>
<form method="post" action="${p.action}">
${stepFields(p)}
<input type="hidden" name="factor_id" value="${p.factorId}">
<label for="code">Code</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" spellcheck="false" required>
<button type="submit">Verify and continue</button>
</form>`,
    undefined,
    p.passkey !== undefined,
  );
}

/** The recovery codes, shown once after the first factor, before the sign-in goes on. */
export function recoveryCodesPage(p: {
  action: string;
  csrf: string;
  hidden: Hidden;
  ticket: string;
  codes: readonly string[];
}): Html {
  return layout(
    'Save your recovery codes',
    html`<p class="note">Each code signs you in once if you lose your authenticator. They are shown only now: keep them
somewhere safe.</p>
<ul id="recovery-codes">${p.codes.map((c) => html`<li><code>${c}</code></li>`)}</ul>
<form method="post" action="${p.action}">
${stepFields(p)}
<button type="submit">I saved them, continue</button>
</form>`,
  );
}
