import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What identity providers publish, for tests of the SSO configuration: SAML metadata and OIDC discovery documents
 * (made here from certificates that are test fixtures — no private key is needed to describe a provider), and a real
 * HTTP server on loopback that serves them, or misbehaves as a test asks.
 */

const cert = (name: string) => readFileSync(new URL(`../fixtures/sso/${name}.test-cert.pem`, import.meta.url), 'utf8');

/** Two certificates of a test identity provider (PEM), as a provider that rotates its keys publishes both. */
export const CERT_A = cert('metadata-a');
export const CERT_B = cert('metadata-b');

/** A certificate's fingerprint and expiry as the platform reports them. */
export function certificateRecord(pem: string): { fingerprint: string; notAfter: string } {
  const x = new X509Certificate(pem);
  return { fingerprint: x.fingerprint256, notAfter: new Date(x.validTo).toISOString() };
}

const base64Of = (pem: string) => pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');

/** SAML 2.0 metadata of an identity provider: its entity id, where it signs people in, its signing certificates. */
export function samlMetadata(o: {
  entityId: string;
  ssoUrl: string;
  certs?: string[];
  binding?: 'redirect' | 'post';
}): string {
  const binding = `urn:oasis:names:tc:SAML:2.0:bindings:HTTP-${o.binding === 'post' ? 'POST' : 'Redirect'}`;
  const keys = (o.certs ?? [CERT_A])
    .map(
      (pem) =>
        `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${base64Of(pem)}` +
        '</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>',
    )
    .join('');
  return (
    '<?xml version="1.0"?>' +
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${o.entityId}">` +
    '<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">' +
    keys +
    `<md:SingleSignOnService Binding="${binding}" Location="${o.ssoUrl}"/>` +
    '</md:IDPSSODescriptor></md:EntityDescriptor>'
  );
}

/** An OpenID provider's discovery document for `issuer`, with `overrides` (undefined removes a field). */
export function discoveryDocument(issuer: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const doc: Record<string, unknown> = {
    issuer,
    authorization_endpoint: `${issuer}/auth`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
    id_token_signing_alg_values_supported: ['RS256'],
    ...overrides,
  };
  for (const [k, v] of Object.entries(doc)) if (v === undefined) delete doc[k];
  return doc;
}

/** How the document server answers one path. */
export interface Answer {
  status?: number;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Wait this long before answering (to pass the platform's time limit). */
  delayMs?: number;
}

/** A real HTTP server on 127.0.0.1 that answers each path as the test says; 404 for the others. */
export interface DocumentServer {
  url: string;
  serve(path: string, answer: Answer): void;
  /** Paths requested, in order. */
  requested: string[];
  close(): Promise<void>;
}

export async function documentServer(): Promise<DocumentServer> {
  const answers = new Map<string, Answer>();
  const requested: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requested.push(path);
    const a = answers.get(path) ?? { status: 404, body: 'not found' };
    const send = () => {
      res.writeHead(a.status ?? 200, a.headers ?? {});
      res.end(a.body ?? '');
    };
    if (!a.delayMs) return send();
    const timer = setTimeout(() => {
      timers.delete(timer);
      send();
    }, a.delayMs);
    timers.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    serve: (path, answer) => void answers.set(path, answer),
    requested,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Serves an OpenID provider's discovery document at `<server>/<name>`; its issuer. */
export function oidcIssuer(server: DocumentServer, name = 'oidc'): string {
  const issuer = `${server.url}/${name}`;
  server.serve(`/${name}/.well-known/openid-configuration`, { body: JSON.stringify(discoveryDocument(issuer)) });
  return issuer;
}
