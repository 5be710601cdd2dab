// SCIM's errors (RFC 7644 §3.12): a status as a string, a `scimType` for the 400s and 409s that have one, a detail.
import { PlatformError } from '../errors.js';

export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

/** A refusal in SCIM's terms. */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly scimType: ScimType | undefined,
    detail: string,
  ) {
    super(detail);
    this.name = 'ScimError';
  }
}

export const badRequest = (scimType: ScimType, detail: string) => new ScimError(400, scimType, detail);

/** SCIM's error body. */
export function scimErrorBody(status: number, scimType: ScimType | undefined, detail: string) {
  return { schemas: [ERROR_SCHEMA], status: String(status), ...(scimType && { scimType }), detail };
}

/** The SCIM error an operation's coded error means (a 409 is a uniqueness conflict, a 422 an invalid value). */
export function asScimError(err: PlatformError | ScimError): ScimError {
  if (err instanceof ScimError) return err;
  const scimType: ScimType | undefined =
    err.status === 409 ? 'uniqueness' : err.status === 422 || err.status === 400 ? 'invalidValue' : undefined;
  return new ScimError(err.status === 422 ? 400 : err.status, scimType, err.message);
}

export function isCodedError(err: unknown): err is PlatformError | ScimError {
  return err instanceof ScimError || err instanceof PlatformError;
}
