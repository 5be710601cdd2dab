import * as z from 'zod';
import { lazySchema, timestampSchema } from './common.js';

/**
 * A domain name, in any case (stored in lower case): labels of letters, digits and inner hyphens, a top-level label of
 * letters. Written without flags or lookarounds: JSON Schema keeps it as it is.
 */
export const domainNameSchema = z
  .string()
  .max(253)
  .regex(/^([a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,63}$/, 'must be a domain name');

/**
 * Where a domain's claim stands (docs/domains.md): `pending` until its DNS record is found, `verified` once it was
 * (or the instance's operator vouched for it), `legacy` for a single sign-on domain of a database from before domains
 * were verified — routed as before until it is verified, or until another organization verifies it.
 */
export const DOMAIN_STATUSES = ['pending', 'verified', 'legacy'] as const;
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];

/** The name of the TXT record that proves a domain, under the domain itself. */
export const CHALLENGE_LABEL = '_plat-challenge';
/** What the TXT record's value starts with; the claim's random token follows. */
export const CHALLENGE_PREFIX = 'plat-verification=';

/** How many domains one organization may claim. */
export const DOMAINS_PER_ORGANIZATION = 50;

export const domainSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    organizationId: z.string(),
    domain: z.string(),
    status: z.enum(DOMAIN_STATUSES),
    verification: z
      .object({
        type: z.literal('dns_txt'),
        name: z.string().meta({ description: 'The TXT record to publish: `_plat-challenge.<domain>`.' }),
        value: z.string().meta({ description: 'Its value: `plat-verification=<token>`.' }),
      })
      .meta({ description: 'The DNS record that proves the domain: publish it, then verify.' }),
    createdAt: timestampSchema,
    verifiedAt: timestampSchema.nullable(),
  }),
).meta({ id: 'Domain' });
export type Domain = z.infer<typeof domainSchema>;

export const domainCreateSchema = lazySchema(() => z.strictObject({ domain: domainNameSchema })).meta({
  id: 'DomainCreate',
});
export type DomainCreate = z.infer<typeof domainCreateSchema>;
