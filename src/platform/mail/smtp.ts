import { createTransport } from 'nodemailer';
import { isLoopback } from '../sso/fetch.js';
import type { Mail } from '../store/outbox.js';
import { type MailFrom, passwordScrubber, type SmtpTarget } from './settings.js';

/** How many connections the pool holds and how many messages it sends a second. */
export interface SmtpPace {
  connections: number;
  perSecond: number;
}

/** How one attempt ended. */
export type SendOutcome =
  | { ok: true }
  | {
      ok: false;
      /** What the server or the network said, without the password. */
      error: string;
      /** The server refused this message for good (a 5xx reply to its recipient or content). */
      rejected: boolean;
      /** The server, not the message, failed (unreachable, refused the credentials or the sender): pause. */
      serverDown: boolean;
    };

/** Sends mails over a pool of SMTP connections. */
export interface SmtpSender {
  send(mail: Mail, signal: AbortSignal): Promise<SendOutcome>;
  /** Closes the pool; `force` also cuts the connections delivering a message (their sends fail). */
  close(force: boolean): void;
}

/** Time limits of one connection (nodemailer's defaults are minutes: a stalled server would hold a lease long). */
const TIMEOUTS = { connectionTimeout: 20_000, greetingTimeout: 20_000, socketTimeout: 60_000, dnsTimeout: 20_000 };

type SmtpError = Error & { code?: string; command?: string; responseCode?: number; permanent?: boolean };

/** The longest error text kept: an SMTP reply may run on. */
const ERROR_MAX = 500;

/**
 * A pooled nodemailer transport to `target`: at most `pace.connections` connections, at most `pace.perSecond` messages
 * a second. Plain text mails, from `from`, with a Message-ID made from the mail's id (the same on every attempt, so
 * that a receiver may recognise a mail sent twice).
 */
export function smtpSender(target: SmtpTarget, from: MailFrom, pace: SmtpPace): SmtpSender {
  const transport = createTransport({
    pool: true,
    host: target.host,
    port: target.port,
    secure: target.secure,
    ...(target.user !== undefined && { auth: { user: target.user, pass: target.password as string } }),
    // Credentials never cross the network in clear: over smtp:// they wait for STARTTLS, which a server that does not
    // offer it (or a network that strips the offer) fails. Only a server on this machine is spoken to in clear.
    requireTLS: !target.secure && target.user !== undefined && !isLoopback(target.host),
    maxConnections: pace.connections,
    rateLimit: pace.perSecond,
    rateDelta: 1000,
    ...TIMEOUTS,
    // Never log (the protocol log would show the credentials' base64), nor read files or URLs named in a message.
    logger: false,
    debug: false,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  const scrub = passwordScrubber(target);
  const domain = from.address.slice(from.address.lastIndexOf('@') + 1);
  return {
    send: async (mail, signal) => {
      try {
        await transport.sendMail({
          from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          date: new Date(mail.createdAt),
          messageId: `<${mail.id}@${domain}>`,
          headers: { 'Auto-Submitted': 'auto-generated' },
          signal,
        });
        return { ok: true };
      } catch (err) {
        return failure(err as SmtpError, scrub);
      }
    },
    close: (force) => transport.transporter.close?.({ force }),
  };
}

/** Sorts a failed send out: the message's own fault (rejected), the server's (down), or a passing one (neither). */
function failure(err: SmtpError, scrub: (text: string) => string): SendOutcome {
  const error = scrub(String(err.message || err.code || err))
    .replace(/\s+/g, ' ')
    .slice(0, ERROR_MAX);
  const aboutMessage = (err.code === 'EENVELOPE' || err.code === 'EMESSAGE') && err.command !== 'MAIL FROM';
  return {
    ok: false,
    error,
    rejected: aboutMessage && err.permanent === true,
    // A send cut off by its time limit (EABORT) is the server's too: it stalled.
    serverDown: !aboutMessage,
  };
}
