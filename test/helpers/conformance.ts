// Conformance of the API to its OpenAPI document (issue 16): every exchange the tests make with the platform — through
// `send`, a test platform's `fetch`, the sign-in pages' FormBrowser, and the global `fetch` (test/setup/conformance.ts)
// — is checked against the document the server serves (`buildOpenApi(ROUTES)`, which test/platform/openapi.test.ts
// proves is what `GET /v2/openapi.json` answers), with Ajv, a JSON Schema 2020-12 validator. A response whose status,
// content type, headers or JSON body drift from their description, a `Location` that leads to no GET, or a request
// (body or query) the server accepted that its description refuses, throws: the test that made the exchange fails.
// Not seen: the CLI's own HTTP client (undici), which the CLI's tests drive.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { RFC8414_PATH } from '../../src/platform/auth/discovery.js';
import { buildOpenApi } from '../../src/platform/http/openapi.js';
import { ROUTES } from '../../src/platform/http/routes/index.js';

type Json = Record<string, any>;

/** One request and its answer, as read by a test. */
export interface Exchange {
  method: string;
  url: string;
  requestType?: string | null;
  /** The request's body as sent, when it had one. */
  requestBody?: string;
  status: number;
  headers: Headers;
  /** The response's body as text; undefined when not read (a stream). */
  body: string | undefined;
}

/** Headers that, when a response carries them, its description must name. */
const NAMED = [
  'location',
  'retry-after',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'set-cookie',
  'www-authenticate',
];

const pointerPart = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');
const mediaOf = (type: string | null | undefined) => (type ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
const isJson = (media: string) => media === 'application/json' || media.endsWith('+json');

/**
 * The path of the document a request's path falls under: below `/v2` (a trailing slash is the path without it), or
 * the RFC 8414 address of the discovery document at the origin's root; undefined for any other server's.
 */
export function documentPath(pathname: string): string | undefined {
  if (pathname === RFC8414_PATH) return RFC8414_PATH;
  if (!pathname.startsWith('/v2/')) return undefined;
  return pathname.slice('/v2'.length).replace(/(.)\/$/, '$1');
}

interface Operation {
  template: string;
  method: string;
  op: Json;
}

/** Checks exchanges against one OpenAPI document. */
export class Conformance {
  readonly #doc: Json;
  readonly #ajv: Ajv2020;
  readonly #validators = new Map<string, ValidateFunction>();
  readonly #templates: { template: string; regex: RegExp; literals: number }[];

  constructor(doc: Json) {
    this.#doc = doc;
    this.#ajv = new Ajv2020({ strictSchema: false, strictTypes: false, allErrors: true });
    addFormatsModule.default(this.#ajv);
    this.#ajv.addSchema(doc, 'openapi');
    this.#templates = Object.keys(doc.paths)
      .map((template) => ({
        template,
        regex: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
        literals: template.split('/').filter((s) => s && !s.startsWith('{')).length,
      }))
      // The most literal template first: `/auth/invitations/accept` before `/invitations/{invitationId}`.
      .sort((a, b) => b.literals - a.literals);
  }

  /**
   * The path template a path of the document falls under for a method (the most literal one that has it, as the
   * server routes: `GET /projects/{projectId}/environments/promote` is the environment named `promote`), if any.
   */
  template(path: string, method = 'get'): string | undefined {
    return this.#templates.find((t) => t.regex.test(path) && this.#doc.paths[t.template][method])?.template;
  }

  #operation(path: string, method: string): Operation | undefined {
    const m = method === 'HEAD' ? 'get' : method.toLowerCase();
    const template = this.template(path, m);
    return template ? { template, method: m, op: this.#doc.paths[template][m] } : undefined;
  }

  /** Follows a `$ref` to a component, returning it and the JSON pointer it lives at. */
  #deref(node: Json, pointer: string): { node: Json; pointer: string } {
    if (typeof node.$ref !== 'string') return { node, pointer };
    const parts = (node.$ref as string).replace(/^#\//, '').split('/');
    let at: any = this.#doc;
    for (const part of parts) at = at?.[part.replaceAll('~1', '/').replaceAll('~0', '~')];
    return { node: at as Json, pointer: `#/${parts.join('/')}` };
  }

  /** What is wrong with a value by the schema at a pointer of the document (none: it is valid). */
  validate(pointer: string, value: unknown): ErrorObject[] {
    let v = this.#validators.get(pointer);
    if (!v) {
      v = this.#ajv.getSchema(`openapi${pointer}`);
      if (!v) throw new Error(`no schema at ${pointer}`);
      this.#validators.set(pointer, v);
    }
    return v(value) ? [] : (v.errors ?? []);
  }

  /** What is wrong with an exchange, in words (none: it conforms). */
  check(ex: Exchange): string[] {
    const url = new URL(ex.url);
    const label = `${ex.method} ${url.pathname} → ${ex.status}`;
    const problems: string[] = [];
    const path = documentPath(url.pathname);
    // Another server: an identity provider, a client's redirect URI.
    if (path === undefined) return [];
    if (!ex.headers.get('x-request-id')) problems.push('no X-Request-Id');
    const found = this.#operation(path, ex.method);
    if (!found) {
      // No such operation (404, 405): the answer is still the envelope.
      if (ex.method !== 'HEAD') {
        problems.push(...this.#body(ex, '#/components/responses/NotFound/content/application~1json/schema'));
      }
      return problems.map((p) => `${label}: ${p}`);
    }
    const base = `#/paths/${pointerPart(found.template)}/${found.method}`;
    const declared = found.op.responses[String(ex.status)];
    if (!declared) {
      problems.push(`status ${ex.status} is not described (described: ${Object.keys(found.op.responses).join(', ')})`);
      return problems.map((p) => `${label}: ${p}`);
    }
    const { node: response, pointer } = this.#deref(declared, `${base}/responses/${ex.status}`);
    problems.push(...this.#headers(ex, response));
    const media = mediaOf(ex.headers.get('content-type'));
    const content = response.content as Json | undefined;
    const empty = ex.body === undefined ? false : ex.body.length === 0;
    if (!content) {
      if (!empty && ex.method !== 'HEAD') problems.push(`a body (${media || 'no type'}) where none is described`);
    } else if (empty && ex.method !== 'HEAD') {
      problems.push(`no body where one is described (${Object.keys(content).join(', ')})`);
    } else if (!empty || media) {
      if (!(media in content)) {
        problems.push(`content type "${media}" is not described (described: ${Object.keys(content).join(', ')})`);
      } else if (isJson(media) && ex.body !== undefined && ex.method !== 'HEAD') {
        problems.push(...this.#body(ex, `${pointer}/content/${pointerPart(media)}/schema`));
      }
    }
    const location = ex.headers.get('location');
    if (location?.startsWith('/v2/')) {
      if (!this.template(new URL(location, url).pathname.slice('/v2'.length))) {
        problems.push(`Location ${location} leads to no GET`);
      }
    }
    // A request the server took (a success, or a redirect that is not an OAuth error) must satisfy its description:
    // one no stricter than the server.
    const took = ex.status < 300 || (ex.status < 400 && !/[?&]error=/.test(location ?? ''));
    if (took) {
      problems.push(...this.#query(url, found.op, base));
      if (ex.requestBody !== undefined && ex.requestBody !== '') problems.push(...this.#request(ex, found.op, base));
    }
    return problems.map((p) => `${label}: ${p}`);
  }

  #body(ex: Exchange, pointer: string): string[] {
    let value: unknown;
    try {
      value = JSON.parse(ex.body ?? '');
    } catch {
      return [`a body that is not JSON: ${(ex.body ?? '').slice(0, 80)}`];
    }
    return this.validate(pointer, value).map((e) => `body${e.instancePath} ${e.message} (${e.schemaPath})`);
  }

  #headers(ex: Exchange, response: Json): string[] {
    const problems: string[] = [];
    const described = new Map<string, Json>();
    for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
      described.set(name.toLowerCase(), this.#deref(header as Json, '').node);
    }
    for (const [name, header] of described) {
      const value = ex.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`no ${name} header, which is described as required`);
        continue;
      }
      if (header.schema?.type === 'integer' && !/^\d+$/.test(value)) problems.push(`${name}: "${value}" is no integer`);
    }
    for (const name of NAMED) {
      if (ex.headers.has(name) && !described.has(name)) problems.push(`a ${name} header that is not described`);
    }
    return problems;
  }

  /** The query parameters of a request the server took, each by its schema (numbers and booleans read as such). */
  #query(url: URL, op: Json, base: string): string[] {
    const problems: string[] = [];
    const described = new Map<string, Json>();
    ((op.parameters ?? []) as Json[]).forEach((p, i) => {
      const { node: param, pointer } = this.#deref(p, `${base}/parameters/${i}`);
      if (param.in === 'query') described.set(param.name, { ...param, pointer: `${pointer}/schema` });
    });
    for (const [name, param] of described) {
      if (param.required && !url.searchParams.has(name)) problems.push(`accepted without query parameter ${name}`);
    }
    for (const [name, raw] of url.searchParams) {
      const param = described.get(name);
      if (!param) {
        // The OAuth pages ignore what they do not know (RFC 6749 §3.1): their parameters are a loose description.
        if (op.security?.length !== 0) problems.push(`accepted an undescribed query parameter ${name}`);
        continue;
      }
      for (const e of this.validate(param.pointer, queryValue(raw, param.schema?.type))) {
        problems.push(`accepted query parameter ${name}=${raw}: ${e.message} (${e.schemaPath})`);
      }
    }
    return problems;
  }

  /** A request body the server accepted must satisfy its description (which may not be stricter than the server). */
  #request(ex: Exchange, op: Json, base: string): string[] {
    const media = mediaOf(ex.requestType);
    const content = op.requestBody?.content as Json | undefined;
    if (!content) return [`a request body (${media}) where the operation describes none`];
    if (!(media in content)) return [`request content type "${media}" is not described`];
    let value: unknown;
    if (media === 'application/x-www-form-urlencoded') {
      value = Object.fromEntries(new URLSearchParams(ex.requestBody));
    } else if (isJson(media)) {
      try {
        value = JSON.parse(ex.requestBody as string);
      } catch {
        return [];
      }
    } else {
      return [];
    }
    if (op['x-items-checked-one-by-one']) value = withoutFailedItems(value, ex.body);
    if (value === undefined) return [];
    return this.validate(`${base}/requestBody/content/${pointerPart(media)}/schema`, value).map(
      (e) => `accepted request body${e.instancePath} ${e.message} (${e.schemaPath})`,
    );
  }
}

/** A query parameter's text as its schema's type reads it: a number or a boolean when it is written as one. */
function queryValue(raw: string, type: unknown): unknown {
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (type === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

/**
 * A batch request without the items its answer says failed (`results[].outcome`): those the server took one by one
 * and refused alone; the rest, and the request itself, must satisfy the description.
 */
function withoutFailedItems(request: unknown, answer: string | undefined): unknown | undefined {
  let failed: Set<number>;
  try {
    const { results } = JSON.parse(answer ?? '') as { results: { index: number; outcome: string }[] };
    failed = new Set(results.filter((r) => r.outcome === 'failed').map((r) => r.index));
  } catch {
    return request;
  }
  const body = request as { users?: unknown };
  if (!Array.isArray(body.users)) return request;
  const users = body.users.filter((_, i) => !failed.has(i));
  // Every item failed: the server took none of them.
  return users.length > 0 ? { ...body, users } : undefined;
}

let served: Conformance | undefined;

/** The checker of the document the platform serves. */
export function conformance(): Conformance {
  served ??= new Conformance(buildOpenApi(ROUTES));
  return served;
}

/** An exchange that does not conform to the document. */
export class ConformanceError extends Error {
  override readonly name = 'ConformanceError';
}

/** Media types whose body is read to check it (streams of other types are left to the test). */
const READ = /^(application\/(json|[\w.+-]*\+json|samlmetadata\+xml|x-www-form-urlencoded)|text\/html|)$/;

/** A request as the check reads it. */
export interface SentRequest {
  method: string;
  url: string;
  requestType: string | null;
  /** Its body as text, when it had one that could be read without consuming a stream. */
  requestBody: string | undefined;
}

/** Checks an exchange against the document, reading a copy of the answer; throws a `ConformanceError` on a drift. */
export async function checkExchange(
  sent: SentRequest,
  response: Response,
  checker: () => Conformance = conformance,
): Promise<void> {
  const media = mediaOf(response.headers.get('content-type'));
  const body = READ.test(media) ? await response.clone().text() : undefined;
  const problems = checker().check({ ...sent, status: response.status, headers: response.headers, body });
  if (problems.length > 0) throw new ConformanceError(`the API drifted from its description:\n${problems.join('\n')}`);
}

/**
 * Starts reading a copy of a request's body, as it is sent: read before sending, a stream that waits on the server
 * would never end.
 */
export function bodyOf(request: Request): Promise<string> | undefined {
  if (request.body === null || request.method === 'GET' || request.method === 'HEAD') return undefined;
  const reading = request.clone().text();
  reading.catch(() => {});
  return reading;
}

/**
 * The request body read by `bodyOf`, when the server took the request (below 400): it then read the whole body, so
 * the copy is whole too. A refused request's body is not checked, nor waited for.
 */
export async function readIfTaken(
  reading: Promise<string> | undefined,
  response: Response,
): Promise<string | undefined> {
  if (!reading || response.status >= 400) return undefined;
  return reading.catch(() => undefined);
}

/** `fetcher`, checking each exchange against the document. The response is returned unread. */
export function conformant<A extends unknown[]>(
  fetcher: (r: Request, ...rest: A) => Promise<Response>,
  checker: () => Conformance = conformance,
): (r: Request, ...rest: A) => Promise<Response> {
  return async (request, ...rest) => {
    const reading = bodyOf(request);
    const response = await fetcher(request, ...rest);
    const sent = {
      method: request.method,
      url: request.url,
      requestType: request.headers.get('content-type'),
      requestBody: await readIfTaken(reading, response),
    };
    await checkExchange(sent, response, checker);
    return response;
  };
}
