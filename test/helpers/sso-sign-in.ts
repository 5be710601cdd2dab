import { dbCount } from './db.js';

// What a sign-in through an identity provider left behind, for the SSO sign-in tests (OIDC and SAML alike): the
// pages the platform answered with, and the rows that prove a refused sign-in created nothing.

/** A page of the platform as a browser got it. */
export interface Page {
  status: number;
  location: string | null;
  text: string;
  headers: Headers;
}

/** Sends one request without following a redirect, as a browser does before it moves on. */
export async function visit(fetcher: (r: Request) => Promise<Response>, url: string | URL): Promise<Page> {
  const res = await fetcher(new Request(url, { redirect: 'manual' }));
  return { status: res.status, location: res.headers.get('location'), text: await res.text(), headers: res.headers };
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescapeHtml = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] as string);

/** What a page of a failed sign-in says: its message, its request id, and where its way back leads (if it has one). */
export function failurePage(page: Page): { message: string | undefined; note: string | undefined; back?: URL } {
  const message = /<p role="alert" id="message">([\s\S]*?)<\/p>/.exec(page.text)?.[1];
  const note = /<p class="note">([\s\S]*?)<\/p>/.exec(page.text)?.[1];
  const back = /<a id="back" href="([^"]*)">/.exec(page.text)?.[1];
  return {
    message: message && unescapeHtml(message).replace(/\s+/g, ' '),
    note: note && unescapeHtml(note),
    ...(back ? { back: new URL(unescapeHtml(back)) } : {}),
  };
}

/** The message of a failed sign-in's page for `check`. */
export const failedBecause = (check: string) =>
  `Signing in through your organization's identity provider failed: ${check}.`;

/** How many rows a sign-in can create: users and memberships, identities, codes, sessions, device approvals. */
export async function rowCounts(p: object): Promise<Record<string, number>> {
  return {
    accounts: await dbCount(p, 'accounts'),
    memberships: await dbCount(p, 'org_users'),
    active: await dbCount(p, 'org_users', "WHERE status = 'active'"),
    identities: await dbCount(p, 'sso_identities'),
    codes: await dbCount(p, 'authorization_codes'),
    sessions: await dbCount(p, 'sessions'),
    approvedDevices: await dbCount(p, 'device_codes', 'WHERE user_id IS NOT NULL'),
  };
}
