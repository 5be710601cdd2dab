import { createHmac, randomBytes } from 'node:crypto';

// Standard Webhooks' signature (standardwebhooks.com, "Signature scheme"): HMAC-SHA256 over
// `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the secret's bytes (the base64 after `whsec_`), in base64,
// versioned `v1,` — one per secret, space-separated, while a rotated-out secret still signs.

/** A fresh signing secret: `whsec_` and 24 random bytes in base64, as Standard Webhooks' libraries expect. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** The bytes of a `whsec_…` secret. */
export function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

/** One `v1,<base64>` signature of a message. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secretBytes(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers of a message, signed with every secret given. */
export function signedHeaders(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signature(s, id, timestamp, body)).join(' '),
  };
}
