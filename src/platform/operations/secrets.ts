import type { BaseCtx } from '../context.js';

/** What `forgetSealedSecrets` discarded. */
export interface ForgottenSecrets {
  /** Signing keys retired: access tokens they signed no longer verify (refresh tokens still work). */
  signingKeys: number;
  /** Organizations whose SSO client secret is gone: their OIDC sign-in needs it set again. */
  ssoClientSecrets: string[];
  /** Mails whose sealed text and links are gone (those not sent yet are given up): their links must be sent again. */
  mails: number;
  /** Accounts whose imported Firebase hash is gone: they sign in again after a new password (a new invitation). */
  passwords: number;
  /** Webhook endpoints whose signing secrets are gone: disabled until their secret is rotated and they are enabled. */
  webhooks: number;
  /** Authenticator apps (TOTP factors) whose secrets are gone: those people enroll again. */
  authenticatorApps: number;
}

/**
 * The way out when the key the database's secrets were sealed with is lost (`plat local forget-secrets`): every
 * sealed secret is discarded — the signing keys retired (a new one, sealed with the key at hand, is made on first
 * use), the SSO client secrets cleared, the mails' text and links replaced by a note (invitations are resent to get
 * new links), the imported Firebase hashes cleared (those accounts have no password until they set one), the webhook
 * endpoints' secrets discarded and the endpoints disabled, the authenticator apps (TOTP) removed — and the record of the old key with them. One
 * transaction; an event per organization whose client secret went.
 */
export async function forgetSealedSecrets(base: BaseCtx): Promise<ForgottenSecrets> {
  return base.tx(async (base) => {
    const now = base.now();
    const signingKeys = await base.stores.auth.retireSigningKeys(now);
    const ssoClientSecrets = await base.stores.sso.forgetClientSecrets(now);
    const mails = await base.stores.outbox.forgetMails(now);
    const passwords = await base.stores.users.forgetSealedHashes(now);
    const webhooks = await base.stores.webhooks.forgetSecrets(now);
    const authenticatorApps = await base.stores.mfa.forgetSecrets();
    for (const orgId of ssoClientSecrets) {
      await base.stores.events.insert({
        id: base.ids('event'),
        type: 'sso.updated',
        organizationId: orgId,
        actor: { type: 'system', id: 'forget-secrets' },
        target: { type: 'organization', id: orgId },
        requestId: null,
        createdAt: now,
        data: { clientSecretForgotten: true },
      });
    }
    return { signingKeys, ssoClientSecrets, mails, passwords, webhooks, authenticatorApps };
  });
}
