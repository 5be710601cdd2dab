import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Interaction, Provider } from 'oidc-provider';
import type { Page } from 'playwright-core';

/** Claims of one account at the test IdP (its `sub` is the key of the map that holds it). */
export type IdpClaims = { email?: string; email_verified?: boolean; name?: string } & Record<string, unknown>;

/**
 * The test IdP's own interaction page, served at `{issuer}/interaction/{uid}` through the provider's interactions
 * API. oidc-provider's dev interactions would do (any username, any password), but they take two forms (login,
 * then consent) whose markup is not ours to rely on; this one is a single form with stable labels that plain
 * HTTP and Chromium (JavaScript off) fill alike, and it only lets in accounts of the test's `users` map.
 * Consent is given at once, as an organization's IdP does for its own applications.
 */
export async function serveInteraction(
  provider: Provider,
  users: Map<string, IdpClaims>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  let details: Interaction;
  try {
    details = await provider.interactionDetails(req, res);
  } catch (err) {
    // No interaction cookie, or an expired interaction: what oidc-provider calls SessionNotFound.
    res.writeHead(400, { 'Content-Type': 'text/plain' }).end(`test IdP: ${(err as Error).message}`);
    return;
  }
  if (details.prompt.name === 'consent') return consent(provider, details, req, res);
  if (details.prompt.name !== 'login') {
    res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`test IdP: unexpected prompt ${details.prompt.name}`);
    return;
  }
  if (req.method !== 'POST') return loginPage(res, details, 200);
  const form = new URLSearchParams(await readBody(req));
  if (form.get('action') === 'cancel') {
    const result = { error: 'access_denied', error_description: 'the person cancelled the sign-in at the IdP' };
    return provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  }
  const login = form.get('login') ?? '';
  const sub = users.has(login) ? login : [...users].find(([, claims]) => claims.email === login)?.[0];
  if (sub === undefined) return loginPage(res, details, 401, `No account "${login}" at this IdP.`);
  return provider.interactionFinished(req, res, { login: { accountId: sub } }, { mergeWithLastSubmission: false });
}

/** Signs in on the test IdP's page open in Chromium (by sub or e-mail); the caller waits for where it lands. */
export async function signInOnPage(page: Page, login: string): Promise<void> {
  await page.getByLabel('Username').fill(login);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Grants what the client asked for, as the interaction's details list it (the example app's consent, unasked). */
async function consent(provider: Provider, details: Interaction, req: IncomingMessage, res: ServerResponse) {
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
  const existing = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
  const grant =
    existing ??
    new provider.Grant({ accountId: details.session?.accountId ?? '', clientId: String(details.params.client_id) });
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  const grantId = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { consent: existing ? {} : { grantId } },
    { mergeWithLastSubmission: true },
  );
}

function loginPage(res: ServerResponse, details: Interaction, status: number, problem?: string): void {
  const client = escapeHtml(String(details.params.client_id));
  res
    .writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' })
    .end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in — test IdP</title></head>
<body><h1>Sign in to the test IdP</h1><p>${client} asks you to sign in.</p>
${problem ? `<p role="alert">${escapeHtml(problem)}</p>` : ''}
<form method="post"><label for="login">Username</label> <input id="login" name="login" autofocus>
<button type="submit" name="action" value="sign-in">Sign in</button>
<button type="submit" name="action" value="cancel">Cancel</button></form></body></html>`);
}

/** The provider's error page (renderError), one line of text: the default one imports a web font from Google. */
export async function renderError(
  ctx: { type: string; body: unknown },
  out: { error: string; error_description?: string },
) {
  const problem = escapeHtml(`${out.error}: ${out.error_description ?? ''}`);
  ctx.type = 'html';
  ctx.body = `<!doctype html><title>Sign-in failed — test IdP</title>
<h1>Sign-in failed</h1><p role="alert">${problem}</p>`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
