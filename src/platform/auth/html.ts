import { createHash } from 'node:crypto';
import { apiPath } from '../../contract/endpoint.js';
import { mfaPages } from '../../contract/endpoints/mfa-pages.js';

/**
 * Markup that is already safe: produced by `html`, never by concatenating input. A whole page (`layout`) says whether
 * it loads the passkey script, so that its Content-Security-Policy allows it (`pageHeaders`).
 */
export class Html {
  constructor(
    readonly value: string,
    readonly scripted = false,
  ) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for an element's content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

function render(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** A template tag that escapes every interpolated value unless it is `Html` (lists are rendered item by item). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] as string;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1];
  });
  return new Html(out);
}

const CSS = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f5f6f8;color:#1d2430}
main{max-width:26rem;margin:4rem auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px #0002}
h1{font-size:1.4rem;margin:0 0 1rem}label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input[type=email],input[type=password],input[type=text]{width:100%;box-sizing:border-box;padding:.5rem;font:inherit}
button{margin-top:1.2rem;padding:.6rem 1.2rem;font:inherit;cursor:pointer}fieldset{border:0;padding:0}.choice label{display:inline;font-weight:400}
.error{color:#a40000;background:#fde8e8;padding:.5rem;border-radius:4px}.note{color:#556}`;
const STYLE_HASH = createHash('sha256').update(CSS).digest('base64');

/** Where the sign-in pages' scripts are served (docs/mfa.md): the WebAuthn library, then the pages' own. */
const SCRIPTS = [apiPath(mfaPages.webauthnLibrary), apiPath(mfaPages.passkeyScript)] as const;

/**
 * A whole page: title, heading, content (and `head`, for a refresh). One hashed inline stylesheet; no script unless
 * `scripted` (a page with a passkey button: the files of `SCRIPTS`, from this origin, never inline).
 */
export function layout(title: string, content: Html, head?: Html, scripted = false): Html {
  const scripts = scripted ? SCRIPTS.map((src) => html`<script src="${src}" defer></script>\n`) : undefined;
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · plat</title>
<style>${new Html(CSS)}</style>
${scripts}${head}
</head>
<body>
<main>
<h1>${title}</h1>
${content}
</main>
</body>
</html>
`;
  return new Html(page.value, scripted);
}

/**
 * The headers of every page: a CSP allowing nothing but the stylesheet and form posts to this origin (plus the one
 * origin a successful form may redirect to) — and, on a page with a passkey button (`scripted`), scripts from this
 * origin (docs/mfa.md) — no framing, no caching, no referrer.
 */
export function pageHeaders(formTargets: readonly string[] = [], scripted = false): Record<string, string> {
  const csp = [
    "default-src 'none'",
    ...(scripted ? ["script-src 'self'"] : []),
    `style-src 'sha256-${STYLE_HASH}'`,
    `form-action 'self' ${formTargets.join(' ')}`.trim(),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': csp,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  };
}
