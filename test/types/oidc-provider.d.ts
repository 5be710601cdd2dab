// oidc-provider ships no types and @types/oidc-provider is not installed: this declares the part the test IdP
// (test/helpers/oidc-idp*.ts) uses, nothing more. Configuration stays loosely typed; its documentation is the
// package's docs/README.md (https://github.com/panva/node-oidc-provider/blob/v9.x/docs/README.md).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** The Koa context the provider's middleware sees (only what the test IdP reads or writes). */
  export interface ProviderContext {
    oidc?: { route?: string };
    body: unknown;
    response: { get(field: string): string; set(field: string, value: string): void };
  }

  /** A stored interaction: why the provider needs the person, and the authorization request's parameters. */
  export interface Interaction {
    uid: string;
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, unknown>;
    session?: { accountId?: string };
    grantId?: string;
  }

  /** What a grant (the person's consent to a client) holds. */
  export class Grant {
    constructor(init: { accountId: string; clientId: string });
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    save(): Promise<string>;
    static find(id: string): Promise<Grant | undefined>;
  }

  /** The storage interface of a model (Session, Interaction, AuthorizationCode, Grant, Client…). */
  export interface Adapter {
    upsert(id: string, payload: Record<string, any>, expiresIn?: number): Promise<void>;
    find(id: string): Promise<Record<string, any> | undefined>;
    findByUserCode(userCode: string): Promise<Record<string, any> | undefined>;
    findByUid(uid: string): Promise<Record<string, any> | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export class Provider {
    constructor(issuer: string, configuration?: Record<string, any>);
    readonly issuer: string;
    readonly Grant: typeof Grant;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    use(middleware: (ctx: ProviderContext, next: () => Promise<void>) => Promise<void>): void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
  }

  export default Provider;
}
