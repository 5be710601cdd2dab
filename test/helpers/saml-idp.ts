import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Forged, type Tamper, tamper, type WrapVariant, wrap } from './saml-forgery.js';
import { postForm } from './saml-post-form.js';
import {
  buildResponse,
  SAML_KEYS,
  type SamlKeyName,
  type SamlUser,
  type SignedParts,
  STATUS_SUCCESS,
} from './saml-response.js';
import { type SamlifyFlowResult, samlify } from './samlify.js';

export type { Forged, Tamper, WrapVariant } from './saml-forgery.js';
export { postedForm } from './saml-post-form.js';
export { certBody, SAML_KEYS, type SamlKeyName, type SamlUser, type SignedParts } from './saml-response.js';

// A SAML 2.0 identity provider on loopback for the platform's single sign-on tests, e.g.:
//   const idp = await startSamlIdp({ clock: t.clock });          // metadata names both signing certificates
//   PUT …/sso { protocol: 'saml', metadataUrl: idp.metadataUrl, … }
//   browser → platform → 303 to idp.ssoUrl?SAMLRequest=… → the IdP's page posts SAMLResponse to the ACS
//   const request = idp.requests.at(-1);                        // what the platform sent
//   POST …/acs { SAMLResponse: idp.response({ request, wrap: 'beside' }), RelayState: request.relayState }
// test/sso/*.test.ts show each knob against node-saml alone.

// samlify refuses to parse anything until a schema validator is registered (its XSD validators are separate
// packages). This IdP only reads AuthnRequests that the platform under test sends, and what it checks is the
// platform's side: a permissive validator is enough here, and would not be for a real IdP.
samlify.setSchemaValidator({ validate: () => Promise.resolve('not validated: test IdP') });

/** The IdP's two signing keys; the stranger is never in its metadata. */
export type IdpKeyName = Exclude<SamlKeyName, 'stranger'>;

export interface SamlIdpOptions {
  /** The certificates its metadata names, in order (default both, for rotation); it signs with the first. */
  certificates?: IdpKeyName[];
  /** Who signs in at `/sso` (default {@link DEFAULT_USER}). */
  user?: SamlUser;
  /** The SP a response goes to when it answers no AuthnRequest (IdP-initiated), as an IdP is configured with. */
  sp?: { entityId: string; acsUrl: string };
  /** The IdP's now (default the system clock); pass the platform's fixed clock to agree with it. */
  clock?: () => Date;
  /**
   * The host in its URLs (it listens on 127.0.0.1 either way). `localhost` makes the IdP another site than an SP at
   * 127.0.0.1, so a browser posts the response cross-site — without SameSite=Lax cookies, as in production.
   */
  host?: '127.0.0.1' | 'localhost';
}

/** An AuthnRequest the IdP received at `/sso`. */
export interface SamlAuthnRequest {
  id: string;
  issuer: string;
  acsUrl: string | undefined;
  destination: string | undefined;
  issueInstant: string;
  relayState: string | undefined;
  /** It came with a redirect-binding signature (`Signature` and `SigAlg`), which this IdP does not check. */
  signed: boolean;
  xml: string;
}

/** The knobs of a response; every one has a well-behaved default. */
export interface ResponseParams {
  /** The AuthnRequest answered: gives `inResponseTo`, `acsUrl` and `audience` (its issuer). */
  request?: SamlAuthnRequest;
  /** Where it goes; default the request's ACS URL, else `opts.sp.acsUrl`. */
  acsUrl?: string;
  /** Default the request's issuer, else `opts.sp.entityId`. */
  audience?: string;
  /** Default the request's ID; `null` (or no request): unsolicited, IdP-initiated. */
  inResponseTo?: string | null;
  /** Response@Destination, default `acsUrl`; `null` leaves it out. */
  destination?: string | null;
  /** SubjectConfirmationData@Recipient, default `acsUrl`. */
  recipient?: string;
  /** Issuer of the response and its assertion, default the IdP's entity id. */
  issuer?: string;
  user?: SamlUser;
  /** Default the IdP's clock. */
  issuedAt?: Date;
  /** Default `issuedAt`; `null` leaves it out. */
  notBefore?: Date | null;
  /** Default `issuedAt` + 5 minutes. */
  notOnOrAfter?: Date;
  /** Default `assertion` (what Entra ID and most IdPs do unless told otherwise). */
  sign?: SignedParts;
  /** Default the first certificate of the metadata; one name for both signatures, or one for each. */
  signingKey?: SamlKeyName | { response: SamlKeyName; assertion: SamlKeyName };
  tamper?: Tamper;
  /** Signature wrapping; the forged assertion is for {@link FORGED_USER} unless `as` says whom. */
  wrap?: WrapVariant | { variant: WrapVariant; as: Forged };
  /** Default a fresh id; the same twice is a replay. */
  assertionId?: string;
  responseId?: string;
  /** Top-level StatusCode, default Success; any other sends no assertion. */
  status?: string;
}

/** A running IdP. */
export interface SamlIdp {
  url: string;
  entityId: string;
  metadataUrl: string;
  /** The SingleSignOnService (HTTP-Redirect binding). */
  ssoUrl: string;
  metadata: string;
  /** The PEM certificates its metadata names. */
  certificates: string[];
  /** Every AuthnRequest received at `/sso`, oldest first. */
  requests: readonly SamlAuthnRequest[];
  /** Who signs in at `/sso` from now on. */
  setUser(user: SamlUser): void;
  /** Knobs for the responses `/sso` sends from now on (a forged case through a browser); `{}` resets. */
  answerWith(params: Omit<ResponseParams, 'request'>): void;
  /** A response built directly, base64 — the `SAMLResponse` field to POST to the ACS. */
  response(params?: ResponseParams): string;
  /** The same, as XML. */
  responseXml(params?: ResponseParams): string;
  close(): Promise<void>;
}

export const DEFAULT_USER: SamlUser = { nameId: 'idp-user-0001', email: 'sam@acme.test', name: 'Sam Sample' };
/** Whom a wrapped assertion names by default. */
export const FORGED_USER: Forged = { nameId: 'idp-user-0666', email: 'mallory@acme.test' };

const FIVE_MINUTES = 5 * 60_000;
const newId = () => `_${randomBytes(20).toString('hex')}`;

/** Starts a SAML 2.0 IdP on 127.0.0.1:0: metadata at `/metadata`, SSO (HTTP-Redirect in, HTTP-POST out) at `/sso`. */
export async function startSamlIdp(opts: SamlIdpOptions = {}): Promise<SamlIdp> {
  const names = opts.certificates ?? ['first', 'second'];
  if (names.length === 0) throw new Error('an IdP names at least one certificate');
  const clock = opts.clock ?? (() => new Date());
  const requests: SamlAuthnRequest[] = [];
  let user = opts.user ?? DEFAULT_USER;
  let answer: Omit<ResponseParams, 'request'> = {};
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => page(res, 500, `IdP error: ${String(err)}`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://${opts.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  const entityId = `${url}/metadata`;
  const ssoUrl = `${url}/sso`;
  const certificates = names.map((n) => SAML_KEYS[n].cert);
  const entity = withoutSloWarning(() =>
    samlify.IdentityProvider({
      entityID: entityId,
      signingCert: certificates,
      singleSignOnService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: ssoUrl }],
      nameIDFormat: ['urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'],
    }),
  );
  const metadata = entity.getMetadata();

  function responseXml(p: ResponseParams = {}): string {
    const acsUrl = p.acsUrl ?? p.request?.acsUrl ?? opts.sp?.acsUrl;
    const audience = p.audience ?? p.request?.issuer ?? opts.sp?.entityId;
    if (!acsUrl || !audience) throw new Error('a response needs acsUrl and audience (or a request, or opts.sp)');
    const issuedAt = p.issuedAt ?? clock();
    const keyNames =
      typeof p.signingKey === 'object' ? p.signingKey : { response: p.signingKey, assertion: p.signingKey };
    const wrapping = typeof p.wrap === 'string' ? { variant: p.wrap, as: FORGED_USER } : p.wrap;
    const sign = p.sign ?? 'assertion';
    if (wrapping) checkWrappable(wrapping.variant, sign);
    let xml = buildResponse({
      responseId: p.responseId ?? newId(),
      assertionId: p.assertionId ?? newId(),
      issuer: p.issuer ?? entityId,
      inResponseTo: p.inResponseTo === undefined ? (p.request?.id ?? null) : p.inResponseTo,
      destination: p.destination === undefined ? acsUrl : p.destination,
      recipient: p.recipient ?? acsUrl,
      audience,
      issuedAt,
      notBefore: p.notBefore === undefined ? issuedAt : p.notBefore,
      notOnOrAfter: p.notOnOrAfter ?? new Date(issuedAt.getTime() + FIVE_MINUTES),
      user: p.user ?? user,
      sign,
      keys: {
        response: SAML_KEYS[keyNames.response ?? (names[0] as IdpKeyName)],
        assertion: SAML_KEYS[keyNames.assertion ?? (names[0] as IdpKeyName)],
      },
      status: p.status ?? STATUS_SUCCESS,
    });
    if (p.tamper) xml = tamper(xml, p.tamper);
    if (wrapping) xml = wrap(xml, wrapping.variant, wrapping.as);
    return xml;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = new URL(req.url ?? '/', url);
    if (req.method === 'GET' && target.pathname === '/metadata') {
      res.writeHead(200, { 'Content-Type': 'application/samlmetadata+xml' }).end(metadata);
      return;
    }
    if (req.method !== 'GET' || target.pathname !== '/sso') return page(res, 404, 'Not found');
    const query = Object.fromEntries(target.searchParams);
    if (!query.SAMLRequest) return page(res, 400, 'No SAMLRequest');
    let parsed: SamlifyFlowResult;
    try {
      // The SP entity only names who sent the request: requests are not signed for this IdP, and nothing else of
      // the SP is read when a request is parsed.
      parsed = await entity.parseLoginRequest(samlify.ServiceProvider({}), 'redirect', { query });
    } catch (err) {
      return page(res, 400, `Bad AuthnRequest: ${(err as Error).message}`);
    }
    const request = recorded(parsed.extract, parsed.samlContent, query);
    requests.push(request);
    const acsUrl = answer.acsUrl ?? request.acsUrl ?? opts.sp?.acsUrl;
    if (!acsUrl) return page(res, 400, 'The AuthnRequest names no AssertionConsumerServiceURL');
    const samlResponse = Buffer.from(responseXml({ ...answer, request })).toString('base64');
    return postForm(res, acsUrl, { SAMLResponse: samlResponse, RelayState: request.relayState });
  }

  return {
    url,
    entityId,
    metadataUrl: `${url}/metadata`,
    ssoUrl,
    metadata,
    certificates,
    requests,
    setUser: (u) => {
      user = u;
    },
    answerWith: (params) => {
      answer = params;
    },
    response: (p) => Buffer.from(responseXml(p)).toString('base64'),
    responseXml,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** Runs `build` with samlify's warning that an IdP has no single logout service dropped: this one has none on purpose. */
function withoutSloWarning<T>(build: () => T): T {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).includes('missing endpoint of SingleLogoutService')) warn(...args);
  };
  try {
    return build();
  } finally {
    console.warn = warn;
  }
}

function checkWrappable(variant: WrapVariant, sign: SignedParts): void {
  // Wrapping a part whose signature the edit itself breaks would fail for the wrong reason.
  const needs = variant === 'response-wrap' ? ['response', 'both'] : ['assertion'];
  if (!needs.includes(sign)) throw new Error(`wrap ${variant} needs sign ${needs.join(' or ')}, not ${sign}`);
}

function recorded(extract: SamlifyFlowResult['extract'], xml: string, query: Record<string, string>): SamlAuthnRequest {
  const request = extract.request ?? {};
  return {
    id: request.id ?? '',
    issuer: String(extract.issuer ?? ''),
    acsUrl: request.assertionConsumerServiceUrl,
    destination: request.destination,
    issueInstant: request.issueInstant ?? '',
    relayState: query.RelayState,
    signed: Boolean(query.Signature && query.SigAlg),
    xml,
  };
}

function page(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' }).end(text);
}
