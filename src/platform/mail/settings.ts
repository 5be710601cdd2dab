/** Where and how to reach the SMTP server: what `--smtp-url` says, parsed. */
export interface SmtpTarget {
  host: string;
  port: number;
  /** TLS from the start (`smtps://`); else STARTTLS when the server offers it (`smtp://`). */
  secure: boolean;
  user?: string;
  password?: string;
  /** The URL without its password, `smtp://user@host:port`: all that logs and messages ever show of it. */
  display: string;
}

/** A `--smtp-url` that cannot be used. Its message never quotes the URL, which may hold a password. */
export class SmtpUrlError extends Error {
  override name = 'SmtpUrlError';
}

const SHAPE = 'expected smtp://[USER:PASSWORD@]HOST[:PORT] (STARTTLS when offered) or smtps://… (TLS)';

/**
 * Parses an SMTP URL: `smtp://` (port 587 by default) or `smtps://` (465), an optional user and password
 * (percent-encoded, as in any URL), a host, and nothing else.
 */
export function parseSmtpUrl(text: string): SmtpTarget {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SmtpUrlError(`it is not a URL: ${SHAPE}`);
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    // The scheme alone is safe to show.
    throw new SmtpUrlError(`its scheme is ${url.protocol.slice(0, 20)}//: ${SHAPE}`);
  }
  if (!url.hostname) throw new SmtpUrlError(`it names no host: ${SHAPE}`);
  if ((url.pathname !== '' && url.pathname !== '/') || url.search || url.hash) {
    throw new SmtpUrlError(`it has a path, a query or a fragment, which plat does not read: ${SHAPE}`);
  }
  if (url.password && !url.username) throw new SmtpUrlError(`it has a password but no user: ${SHAPE}`);
  if (url.username && !url.password) throw new SmtpUrlError(`it has a user but no password: ${SHAPE}`);
  let user: string | undefined;
  let password: string | undefined;
  try {
    user = url.username ? decodeURIComponent(url.username) : undefined;
    password = url.password ? decodeURIComponent(url.password) : undefined;
  } catch {
    throw new SmtpUrlError('its user or password holds a malformed %-escape (write % as %25)');
  }
  const secure = url.protocol === 'smtps:';
  const port = url.port ? Number(url.port) : secure ? 465 : 587;
  if (port === 0) throw new SmtpUrlError(`its port is 0: ${SHAPE}`);
  const display = `${url.protocol}//${url.username ? `${url.username}@` : ''}${url.hostname}:${port}`;
  // An IPv6 host keeps its brackets in a URL, not in a socket address.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return { host, port, secure, display, ...(user !== undefined && { user, password }) };
}

/**
 * A function that replaces the target's password in a text (an SMTP reply, an error) with `***`, in every form it may
 * travel in: as given, percent-encoded, and in base64 as AUTH PLAIN and AUTH LOGIN send it.
 */
export function passwordScrubber(target: SmtpTarget): (text: string) => string {
  const { user, password } = target;
  if (!password) return (text) => text;
  const forms = [
    password,
    encodeURIComponent(password),
    Buffer.from(password).toString('base64'),
    Buffer.from(`\u0000${user ?? ''}\u0000${password}`).toString('base64'),
  ].sort((a, b) => b.length - a.length);
  return (text) => forms.reduce((t, form) => t.split(form).join('***'), text);
}

/** The sender of the platform's e-mails: an address and, optionally, a display name. */
export interface MailFrom {
  name?: string;
  address: string;
}

/** A `--mail-from` that is not an address. */
export class MailFromError extends Error {
  override name = 'MailFromError';
}

const ADDRESS = /^[^\s<>@"(),;:\\]+@[^\s<>@"(),;:\\]+$/;

/** Parses `Name <address@domain>` or `address@domain` (the name may be quoted). */
export function parseMailFrom(text: string): MailFrom {
  const trimmed = text.trim();
  if (ADDRESS.test(trimmed)) return { address: trimmed };
  const m = /^(.*?)\s*<([^<>]*)>$/.exec(trimmed);
  const name = m?.[1]?.replace(/^"(.*)"$/, '$1');
  const address = m?.[2] ?? '';
  // A line break would start another header.
  if (!m || !ADDRESS.test(address) || /[\r\n<>"]/.test(name ?? '')) {
    throw new MailFromError(`"${text}" is not an e-mail address: expected "Name <address@domain>" or address@domain`);
  }
  return name ? { name, address } : { address };
}

/**
 * The sender when none is given: `plat <no-reply@HOST>`, HOST being the host of the public URL (links in the mails
 * point there), or `localhost` when that host is an IP address, which is not a mail domain.
 */
export function defaultMailFrom(publicUrl: string): MailFrom {
  const host = new URL(publicUrl).hostname.replace(/^\[(.*)\]$/, '$1');
  const ip = host.includes(':') || /^\d+\.\d+\.\d+\.\d+$/.test(host);
  return { name: 'plat', address: `no-reply@${ip ? 'localhost' : host}` };
}

/** A sender as a header shows it. */
export const formatMailFrom = (from: MailFrom): string => (from.name ? `${from.name} <${from.address}>` : from.address);
