import type { List } from '../../contract/common.js';
import {
  type CreatedScimToken,
  SCIM_TOKENS_PER_ORGANIZATION,
  type ScimStatus,
  type ScimToken,
  type ScimTokenCreate,
} from '../../contract/scim.js';
import { hashSecret } from '../auth/api-keys.js';
import { randomBase62 } from '../clock.js';
import type { Ctx } from '../context.js';
import { conflict, notFound } from '../errors.js';
import { scimBaseUrl } from '../scim/users.js';

// The bearer tokens identity providers provision an organization with over SCIM (docs/scim.md).

/** A new secret: `scim_` and 43 base62 characters (256 random bits). */
export function generateScimToken(): string {
  return `scim_${randomBase62(43)}`;
}

/** `GET /organizations/{orgId}/scim`: the SCIM base URL, and what the organization's tokens did. */
export async function scimStatus(ctx: Ctx, orgId: string): Promise<ScimStatus> {
  const activity = await ctx.stores.scim.activity(orgId);
  return { organizationId: orgId, baseUrl: scimBaseUrl(ctx.publicUrl, orgId), ...activity };
}

/** `GET /organizations/{orgId}/scim/tokens`: oldest first. */
export async function listScimTokens(ctx: Ctx, orgId: string): Promise<Pick<List<ScimToken>, 'data'>> {
  return { data: await ctx.stores.scim.tokens(orgId) };
}

/** `POST /organizations/{orgId}/scim/tokens`: the secret is answered this once and stored as its hash. */
export async function createScimToken(ctx: Ctx, orgId: string, input: ScimTokenCreate): Promise<CreatedScimToken> {
  return ctx.tx(async (ctx) => {
    if ((await ctx.stores.scim.tokens(orgId)).length >= SCIM_TOKENS_PER_ORGANIZATION) {
      throw conflict(`an organization holds at most ${SCIM_TOKENS_PER_ORGANIZATION} SCIM tokens: revoke one first`);
    }
    const secret = generateScimToken();
    const token: ScimToken = {
      id: ctx.ids('scimToken'),
      organizationId: orgId,
      name: input.name,
      createdAt: ctx.now(),
      lastUsedAt: null,
    };
    await ctx.stores.scim.insertToken(token, hashSecret(secret));
    await ctx.emit('scim_token.created', { type: 'scim_token', id: token.id }, { name: token.name });
    const { lastUsedAt, ...shown } = token;
    return { ...shown, token: secret, lastUsedAt };
  });
}

/** `GET /organizations/{orgId}/scim/tokens/{tokenId}`. */
export async function getScimToken(ctx: Ctx, orgId: string, tokenId: string): Promise<ScimToken> {
  const token = await ctx.stores.scim.token(orgId, tokenId);
  if (!token) throw notFound('SCIM token');
  return token;
}

/** `DELETE /organizations/{orgId}/scim/tokens/{tokenId}`: the token stops working at once. */
export async function deleteScimToken(ctx: Ctx, orgId: string, tokenId: string): Promise<void> {
  await ctx.tx(async (ctx) => {
    const token = await getScimToken(ctx, orgId, tokenId);
    await ctx.stores.scim.deleteToken(orgId, tokenId);
    await ctx.emit('scim_token.deleted', { type: 'scim_token', id: token.id }, { name: token.name });
  });
}
