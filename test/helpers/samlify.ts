import { createRequire } from 'node:module';

// samlify, loaded without its type declarations, typed here with the part the test IdP uses (signatures copied from
// samlify 2.13's own .d.ts). Its declarations import a nested copy of @xmldom/xmldom whose index.d.ts says
// `/// <reference lib="dom" />`: one `import … from 'samlify'` puts the DOM library into the whole program, and the
// DOM's `Headers` (not iterable without DOM.Iterable) then breaks Node's fetch types in unrelated files.

/** An endpoint of an entity's metadata. */
export interface SamlifyService {
  Binding: string;
  Location: string;
}

/** What samlify's IdP read from a request. */
export interface SamlifyFlowResult {
  samlContent: string;
  extract: { request?: Record<string, string | undefined>; issuer?: string | string[]; [key: string]: unknown };
}

/** samlify's IdentityProvider entity. */
export interface SamlifyIdentityProvider {
  getMetadata(): string;
  parseLoginRequest(
    sp: SamlifyServiceProvider,
    binding: 'redirect' | 'post',
    req: { query?: Record<string, unknown>; body?: Record<string, unknown>; octetString?: string },
  ): Promise<SamlifyFlowResult>;
}

/** samlify's ServiceProvider entity (only handed back to samlify). */
export interface SamlifyServiceProvider {
  getMetadata(): string;
}

/** The part of samlify's `SamlLib` (libsaml) used to write and sign responses. */
export interface SamlifyLib {
  defaultLoginResponseTemplate: { context: string };
  replaceTagsByValue(rawXML: string, tagValues: Record<string, string | number | boolean | null | undefined>): string;
  attributeStatementBuilder(
    attributes: { name: string; nameFormat: string; valueTag: string; valueXsiType: string }[],
  ): string;
  constructSAMLSignature(opts: {
    rawSamlMessage: string;
    referenceTagXPath?: string;
    privateKey: string;
    signatureAlgorithm: string;
    signingCert: string;
    isBase64Output?: boolean;
    isMessageSigned?: boolean;
    signatureConfig?: {
      prefix?: string;
      location?: { reference?: string; action?: 'append' | 'prepend' | 'before' | 'after' };
    };
  }): string;
}

interface Samlify {
  IdentityProvider(settings: {
    entityID: string;
    signingCert: string[];
    singleSignOnService: SamlifyService[];
    nameIDFormat?: string[];
    wantAuthnRequestsSigned?: boolean;
  }): SamlifyIdentityProvider;
  ServiceProvider(settings: { entityID?: string }): SamlifyServiceProvider;
  SamlLib: SamlifyLib;
  Constants: { namespace: { binding: { redirect: string; post: string } } };
  setSchemaValidator(params: { validate: (xml: string) => Promise<unknown> }): void;
}

/** samlify's entry module. */
export const samlify = createRequire(import.meta.url)('samlify') as Samlify;
