import type { ServerResponse } from 'node:http';

// The HTTP-POST binding as an IdP's page does it, and as a test without a browser reads it back.

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** The HTTP-POST binding: a page whose form posts itself to the ACS (a button when scripts are off). */
export function postForm(res: ServerResponse, action: string, fields: Record<string, string | undefined>): void {
  const inputs = Object.entries(fields)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');
  const html =
    '<!doctype html><html><head><title>Signing in…</title></head><body onload="document.forms[0].submit()">' +
    `<form method="post" action="${escapeHtml(action)}">${inputs}<noscript><button type="submit">Continue</button></noscript></form>` +
    '</body></html>';
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(html);
}

const UNESCAPE: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescapeHtml = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (e) => UNESCAPE[e] as string);

/** The form of the IdP's `/sso` page, read as a browser submits it: where it posts, and what. */
export function postedForm(html: string): { action: string; fields: Record<string, string> } {
  const action = /<form method="post" action="([^"]*)">/.exec(html)?.[1];
  if (action === undefined) throw new Error(`no form in ${html.slice(0, 200)}`);
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[unescapeHtml(m[1] as string)] = unescapeHtml(m[2] as string);
  }
  return { action: unescapeHtml(action), fields };
}
