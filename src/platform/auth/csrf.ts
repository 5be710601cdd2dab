import { timingSafeEqual } from 'node:crypto';
import { API_BASE } from '../../contract/endpoint.js';
import type { BaseCtx } from '../context.js';
import type { PageCall } from '../http/page.js';
import { newOpaqueSecret } from './secrets.js';

const COOKIE = 'plat_csrf';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The CSRF token of this browser (double submit): a random value in an HttpOnly, SameSite=Strict cookie scoped to
 * the sign-in pages, repeated in each form. Reuses the browser's value so that two open tabs both work.
 */
export function csrfToken(ctx: BaseCtx, c: PageCall): string {
  const existing = c.cookie(COOKIE);
  if (existing && TOKEN.test(existing)) return existing;
  const token = newOpaqueSecret().secret;
  c.setCookie(COOKIE, token, {
    path: `${API_BASE}/auth`,
    httpOnly: true,
    sameSite: 'Strict',
    secure: ctx.publicUrl.startsWith('https:'),
  });
  return token;
}

/** Whether a form's `csrf` field matches the browser's cookie (constant time). */
export function csrfValid(c: PageCall, submitted: string | undefined): boolean {
  const cookie = c.cookie(COOKIE);
  if (!cookie || !submitted || !TOKEN.test(cookie)) return false;
  const a = Buffer.from(cookie);
  const b = Buffer.from(submitted);
  return a.length === b.length && timingSafeEqual(a, b);
}
