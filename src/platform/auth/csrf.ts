import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { BaseCtx } from '../context.js';
import { newOpaqueSecret } from './secrets.js';

const COOKIE = 'plat_csrf';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The CSRF token of this browser (double submit): a random value in an HttpOnly, SameSite=Strict cookie scoped to
 * the sign-in pages, repeated in each form. Reuses the browser's value so that two open tabs both work.
 */
export function csrfToken(ctx: BaseCtx, c: Context): string {
  const existing = getCookie(c, COOKIE);
  if (existing && TOKEN.test(existing)) return existing;
  const token = newOpaqueSecret().secret;
  setCookie(c, COOKIE, token, {
    path: '/v2/auth',
    httpOnly: true,
    sameSite: 'Strict',
    secure: ctx.publicUrl.startsWith('https:'),
  });
  return token;
}

/** Whether a form's `csrf` field matches the browser's cookie (constant time). */
export function csrfValid(c: Context, submitted: string | undefined): boolean {
  const cookie = getCookie(c, COOKIE);
  if (!cookie || !submitted || !TOKEN.test(cookie)) return false;
  const a = Buffer.from(cookie);
  const b = Buffer.from(submitted);
  return a.length === b.length && timingSafeEqual(a, b);
}
