import type { Resolved } from '../config/resolve.js';
import type { Event } from '../contract/events.js';
import { signedHeaders } from '../contract/webhook-signature.js';
import { webhookBody } from '../contract/webhooks.js';

// `plat events listen` (docs/cli.md, "Events"): each event POSTed to a local receiver with the body and the Standard
// Webhooks headers the platform's own deliveries carry (docs/webhooks.md), signed with a secret of this machine.

/** How long one forward may take, from connecting to the end of the answer. */
export const FORWARD_TIMEOUT_MS = 10_000;

/** What became of one forward: the answer's status, or why there was none. */
export interface ForwardAnswer {
  status: number | null;
  ms: number;
  error: string | null;
}

/**
 * Which listen secret a run uses (config/listen-secret.ts): the profile's credential account (its live, sandbox or
 * `--db` endpoint), or the instance's URL when no profile names it (`PLAT_BASE_URL`, `--base-url`).
 */
export function listenSecretKey(r: Resolved): string {
  return r.kind === 'remote' && r.orgSlot === undefined ? `url:${r.baseUrl}` : `profile:${r.account}`;
}

/** A failure of a forward in a few words: `ECONNREFUSED`, `timed out after 10 s`… */
function failure(err: unknown, timedOut: boolean): string {
  if (timedOut) return `timed out after ${FORWARD_TIMEOUT_MS / 1000} s`;
  const e = err as { code?: string; message?: string; cause?: { code?: string } };
  const code = e?.code && !e.code.startsWith('UND_ERR') ? e.code : e?.cause?.code;
  return code ?? e?.message ?? String(err);
}

/**
 * POSTs `e` to `url` as a webhook delivery of the platform would (`{"type","timestamp","data"}`, `webhook-id` the
 * event's id), signed with `secret`; never throws. Bounded by `FORWARD_TIMEOUT_MS`, and ended early by `signal`.
 */
export async function forwardEvent(
  url: string,
  e: Event,
  secret: string,
  o: { signal: AbortSignal; now: () => Date; userAgent: string },
): Promise<ForwardAnswer> {
  const body = webhookBody(e);
  const headers = {
    ...signedHeaders([secret], e.id, Math.floor(o.now().getTime() / 1000), body),
    'content-type': 'application/json',
    'user-agent': o.userAgent,
  };
  const timeout = AbortSignal.timeout(FORWARD_TIMEOUT_MS);
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    // Imported here: only listen forwards, and commands that do not should not load undici.
    const { request } = await import('undici');
    const answer = await request(url, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.any([timeout, o.signal]),
      headersTimeout: FORWARD_TIMEOUT_MS,
      bodyTimeout: FORWARD_TIMEOUT_MS,
    });
    await answer.body.dump();
    return { status: answer.statusCode, ms: ms(), error: null };
  } catch (err) {
    return { status: null, ms: ms(), error: failure(err, timeout.aborted) };
  }
}
