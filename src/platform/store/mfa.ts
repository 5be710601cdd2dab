import type { Selectable } from 'kysely';
import type { MfaFactorType } from '../../contract/mfa.js';
import type { MfaFactorsTable } from './schema.js';
import { SEALED } from './secret-box.js';
import type { Q, StoreEnv } from './sql.js';

/** A factor as stored, without its secret. */
export interface StoredFactor {
  id: string;
  accountId: string;
  type: MfaFactorType;
  name: string;
  confirmed: boolean;
  createdAt: string;
  lastUsedAt: string | null;
  /** TOTP: the time step of the last code accepted. */
  lastStep: number | null;
  /** WebAuthn: the credential. */
  webauthn: {
    credentialId: string;
    publicKey: string;
    signCount: number;
    transports: string[];
    backedUp: boolean;
  } | null;
}

type Row = Selectable<MfaFactorsTable>;

function toStored(r: Row): StoredFactor {
  return {
    id: r.id,
    accountId: r.account_id,
    type: r.type as MfaFactorType,
    name: r.name,
    confirmed: r.confirmed_at !== null,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    lastStep: r.last_step === null ? null : Number(r.last_step),
    webauthn:
      r.credential_id === null
        ? null
        : {
            credentialId: r.credential_id,
            publicKey: r.public_key ?? '',
            signCount: Number(r.sign_count ?? 0),
            transports: r.transports ? r.transports.split(' ') : [],
            backedUp: r.backed_up === 1,
          },
  };
}

/** What a WebAuthn credential brings to its factor when registered. */
export interface NewCredential {
  id: string;
  accountId: string;
  name: string;
  credentialId: string;
  publicKey: string;
  signCount: number;
  transports: string[];
  backedUp: boolean;
  now: string;
}

/**
 * Second factors (docs/mfa.md): their SQL in one place. TOTP secrets are sealed (secret-box.ts); recovery codes are
 * stored as hashes only; WebAuthn credentials are public keys. Single use is kept by compare-and-set: a TOTP step is
 * accepted only above the last one, a recovery code only while unused, a challenge only once.
 */
export function mfaStore(q: Q, { secrets }: StoreEnv) {
  /** Deletes the account's factors of one type. */
  const deleteOf = (accountId: string, type: MfaFactorType) =>
    q.deleteFrom('mfa_factors').where('account_id', '=', accountId).where('type', '=', type);
  return {
    /** The account's factors, oldest first; confirmed ones only unless `all`. */
    list: async (accountId: string, all = false): Promise<StoredFactor[]> => {
      let query = q.selectFrom('mfa_factors').selectAll().where('account_id', '=', accountId);
      if (!all) query = query.where('confirmed_at', 'is not', null);
      const rows = await query.orderBy('created_at').orderBy('id').execute();
      return rows.map(toStored);
    },
    /** One factor of the account, confirmed or not; undefined when it is another account's or unknown. */
    get: async (accountId: string, id: string): Promise<StoredFactor | undefined> => {
      const r = await q
        .selectFrom('mfa_factors')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst();
      return r && toStored(r);
    },
    /** How many of the recovery codes of each set are unused, by factor id. */
    recoveryCodesLeft: async (factorIds: readonly string[]): Promise<Map<string, number>> => {
      if (factorIds.length === 0) return new Map();
      const rows = await q
        .selectFrom('mfa_recovery_codes')
        .select(['factor_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('factor_id', 'in', factorIds)
        .where('used_at', 'is', null)
        .groupBy('factor_id')
        .execute();
      return new Map(rows.map((r) => [r.factor_id, Number(r.n)]));
    },
    /** A new unconfirmed TOTP factor, replacing any other unconfirmed one of the account. */
    insertTotp: async (f: { id: string; accountId: string; name: string; secret: string; now: string }) => {
      await deleteOf(f.accountId, 'totp').where('confirmed_at', 'is', null).execute();
      await q
        .insertInto('mfa_factors')
        .values({
          id: f.id,
          account_id: f.accountId,
          type: 'totp',
          name: f.name,
          secret: secrets.seal(f.secret, SEALED.totpSecret(f.id)),
          created_at: f.now,
        })
        .execute();
    },
    /** A TOTP factor's secret (base32), or undefined when the factor has none (unknown, or its key was lost). */
    totpSecret: async (id: string): Promise<string | undefined> => {
      const r = await q.selectFrom('mfa_factors').select('secret').where('id', '=', id).executeTakeFirst();
      return r?.secret ? secrets.open(r.secret, SEALED.totpSecret(id)) : undefined;
    },
    /**
     * Accepts a TOTP code's time step: only above the last one accepted (each code once, and none older than the
     * last), confirming the factor if it was not. False when a code of this step or a later one was already used.
     */
    acceptTotpStep: async (id: string, step: number, now: string): Promise<boolean> => {
      const r = await q
        .updateTable('mfa_factors')
        .set((eb) => ({
          last_step: step,
          last_used_at: now,
          confirmed_at: eb.fn.coalesce('confirmed_at', eb.val(now)),
        }))
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
        .executeTakeFirst();
      return r.numUpdatedRows === 1n;
    },
    /** A registered WebAuthn credential, confirmed at once. */
    insertWebauthn: async (c: NewCredential): Promise<void> => {
      await q
        .insertInto('mfa_factors')
        .values({
          id: c.id,
          account_id: c.accountId,
          type: 'webauthn',
          name: c.name,
          credential_id: c.credentialId,
          public_key: c.publicKey,
          sign_count: c.signCount,
          transports: c.transports.join(' ') || null,
          backed_up: c.backedUp ? 1 : 0,
          confirmed_at: c.now,
          created_at: c.now,
        })
        .execute();
    },
    /** The factor of a WebAuthn credential id (base64url), whoever's it is. */
    byCredentialId: async (credentialId: string): Promise<StoredFactor | undefined> => {
      const r = await q
        .selectFrom('mfa_factors')
        .selectAll()
        .where('credential_id', '=', credentialId)
        .executeTakeFirst();
      return r && toStored(r);
    },
    /** After an assertion: its counter, backup state and time of use. */
    usedCredential: async (id: string, signCount: number, backedUp: boolean, now: string): Promise<void> => {
      await q
        .updateTable('mfa_factors')
        .set({ sign_count: signCount, backed_up: backedUp ? 1 : 0, last_used_at: now })
        .where('id', '=', id)
        .execute();
    },
    /** The account's recovery codes (hashes), replacing any earlier set. */
    putRecoveryCodes: async (f: { id: string; accountId: string; hashes: readonly string[]; now: string }) => {
      await deleteOf(f.accountId, 'recovery_codes').execute();
      await q
        .insertInto('mfa_factors')
        .values({
          id: f.id,
          account_id: f.accountId,
          type: 'recovery_codes',
          name: 'Recovery codes',
          confirmed_at: f.now,
          created_at: f.now,
        })
        .execute();
      await q
        .insertInto('mfa_recovery_codes')
        .values(f.hashes.map((h) => ({ factor_id: f.id, code_hash: h })))
        .execute();
    },
    /**
     * Uses one of the account's recovery codes up, its hash made for the set's id (`hashFor`: codes are salted with
     * it); the set's id, or undefined when the code is not one of them or was used.
     */
    useRecoveryCode: async (
      accountId: string,
      hashFor: (setId: string) => string,
      now: string,
    ): Promise<string | undefined> => {
      const set = await q
        .selectFrom('mfa_factors')
        .select('id')
        .where('account_id', '=', accountId)
        .where('type', '=', 'recovery_codes')
        .executeTakeFirst();
      if (!set) return undefined;
      const r = await q
        .updateTable('mfa_recovery_codes')
        .set({ used_at: now })
        .where('factor_id', '=', set.id)
        .where('code_hash', '=', hashFor(set.id))
        .where('used_at', 'is', null)
        .executeTakeFirst();
      if (r.numUpdatedRows !== 1n) return undefined;
      await q.updateTable('mfa_factors').set({ last_used_at: now }).where('id', '=', set.id).execute();
      return set.id;
    },
    /** Removes one factor of the account; false when it had none of that id. */
    remove: async (accountId: string, id: string): Promise<boolean> => {
      const r = await q
        .deleteFrom('mfa_factors')
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst();
      return r.numDeletedRows === 1n;
    },
    /** Removes the account's recovery codes; whether it had any. */
    removeRecoveryCodes: async (accountId: string): Promise<boolean> => {
      const r = await deleteOf(accountId, 'recovery_codes').executeTakeFirst();
      return r.numDeletedRows > 0n;
    },
    /**
     * Discards the sealed TOTP secrets (their key is lost, `plat local forget-secrets`): those factors go, and the
     * recovery codes of accounts left without a factor with them. How many authenticator apps went.
     */
    forgetSecrets: async (): Promise<number> => {
      const apps = await q
        .selectFrom('mfa_factors')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('secret', 'is not', null)
        .where('confirmed_at', 'is not', null)
        .executeTakeFirstOrThrow();
      await q.deleteFrom('mfa_factors').where('secret', 'is not', null).execute();
      await q
        .deleteFrom('mfa_factors')
        .where('type', '=', 'recovery_codes')
        .where('account_id', 'not in', (eb) =>
          eb.selectFrom('mfa_factors').select('account_id').where('type', '!=', 'recovery_codes'),
        )
        .execute();
      return Number(apps.n);
    },
    /** Records a WebAuthn challenge handed out (its hash), for the account it is bound to if any. */
    insertChallenge: async (c: {
      hash: string;
      accountId: string | null;
      purpose: 'register' | 'authenticate';
      now: string;
      expiresAt: string;
    }): Promise<void> => {
      await q.deleteFrom('webauthn_challenges').where('expires_at', '<', c.now).execute();
      await q
        .insertInto('webauthn_challenges')
        .values({
          challenge_hash: c.hash,
          account_id: c.accountId,
          purpose: c.purpose,
          created_at: c.now,
          expires_at: c.expiresAt,
        })
        .execute();
    },
    /** Takes a challenge (once): its account and purpose while unexpired; undefined when unknown, used or expired. */
    takeChallenge: async (
      hash: string,
      now: string,
    ): Promise<{ accountId: string | null; purpose: string } | undefined> => {
      const r = await q
        .deleteFrom('webauthn_challenges')
        .where('challenge_hash', '=', hash)
        .returning(['account_id', 'purpose', 'expires_at'])
        .executeTakeFirst();
      if (!r || r.expires_at <= now) return undefined;
      return { accountId: r.account_id, purpose: r.purpose };
    },
  };
}
