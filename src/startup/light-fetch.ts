/**
 * Minimal `Headers`, `Request` and `Response` for requests that never leave the process: the embedded transport
 * hands its request to the platform's handler and reads the answer back, so no stream, socket or parser is needed.
 * Node's own classes come with its whole HTTP client (undici), about a tenth of a cold start; `plat` installs these
 * in their place when a command runs against the embedded platform (see `installLightFetch`).
 *
 * They cover what a JSON API call uses — string or byte bodies, headers as the Fetch standard defines them (names
 * case-insensitive, iterated lower-cased in order, `set-cookie` kept apart) — and refuse any other body.
 */

type HeadersInput = LightHeaders | Headers | [string, string][] | Record<string, string> | undefined | null;
type BodyInput = string | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array> | null | undefined;

/**
 * A header value as the Fetch standard keeps it: surrounding whitespace removed; NUL, CR or LF refused, and anything
 * that is not a byte string (a character above U+00FF). The message does not quote the value: it may be a secret.
 */
function headerValue(name: string, value: string): string {
  const v = String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  if (/[\0\r\n]|[^\0-\xff]/.test(v)) throw new TypeError(`invalid value for the header ${name}`);
  return v;
}

export class LightHeaders {
  get [Symbol.toStringTag](): string {
    return 'Headers';
  }

  readonly #values = new Map<string, string>();
  readonly #cookies: string[] = [];

  constructor(init?: HeadersInput) {
    if (!init) return;
    if (typeof (init as Headers).forEach === 'function' && !Array.isArray(init)) {
      (init as Headers).forEach((value, name) => {
        this.append(name, value);
      });
    } else if (Array.isArray(init)) {
      for (const [name, value] of init) this.append(name, value);
    } else {
      for (const name of Object.keys(init)) this.append(name, (init as Record<string, string>)[name] as string);
    }
  }

  get(name: string): string | null {
    const key = name.toLowerCase();
    if (key === 'set-cookie') return this.#cookies.length > 0 ? this.#cookies.join(', ') : null;
    return this.#values.get(key) ?? null;
  }

  getSetCookie(): string[] {
    return [...this.#cookies];
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  set(name: string, value: string): void {
    const key = name.toLowerCase();
    const v = headerValue(name, value);
    if (key === 'set-cookie') this.#cookies.splice(0, this.#cookies.length, v);
    else this.#values.set(key, v);
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const v = headerValue(name, value);
    if (key === 'set-cookie') this.#cookies.push(v);
    else {
      const before = this.#values.get(key);
      this.#values.set(key, before === undefined ? v : `${before}, ${v}`);
    }
  }

  delete(name: string): void {
    const key = name.toLowerCase();
    if (key === 'set-cookie') this.#cookies.length = 0;
    else this.#values.delete(key);
  }

  /** Sorted by name, each `set-cookie` on its own: the order the standard gives. */
  *entries(): IterableIterator<[string, string]> {
    const names = [...this.#values.keys()];
    if (this.#cookies.length > 0) names.push('set-cookie');
    for (const name of names.sort()) {
      if (name === 'set-cookie') for (const cookie of this.#cookies) yield [name, cookie];
      else yield [name, this.#values.get(name) as string];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  forEach(fn: (value: string, name: string, headers: LightHeaders) => void): void {
    for (const [name, value] of this.entries()) fn(value, name, this);
  }
}

function checkBody(body: unknown): BodyInput {
  if (body == null || typeof body === 'string' || body instanceof Uint8Array || body instanceof ArrayBuffer) {
    return body as BodyInput;
  }
  // A stream endpoint's answer (Server-Sent Events), read through `.body` as it comes.
  if (typeof (body as ReadableStream).getReader === 'function') return body as ReadableStream<Uint8Array>;
  throw new TypeError('an in-process request or response body must be a string, bytes or a stream');
}

/** The body half of both classes: read once, as text, JSON or bytes. */
class LightBody {
  readonly #body: BodyInput;
  #used = false;

  constructor(body: unknown) {
    this.#body = checkBody(body);
  }

  /** The body as given: enough to pass it on to another Request or Response, or to read a stream as it comes. */
  get body(): BodyInput {
    return this.#body ?? null;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  /** The body's bytes, once. */
  #take(): Uint8Array {
    if (this.#used) throw new TypeError('body already read');
    this.#used = true;
    const body = this.#body;
    if (body == null) return new Uint8Array(0);
    if (!(typeof body === 'string' || body instanceof Uint8Array || body instanceof ArrayBuffer)) {
      throw new TypeError('a streamed body is read through .body');
    }
    if (typeof body === 'string') return new TextEncoder().encode(body);
    // A copy, as reading a body never hands out the bytes it was made from.
    return body instanceof ArrayBuffer ? new Uint8Array(body).slice() : body.slice();
  }

  async text(): Promise<string> {
    if (typeof this.#body === 'string' && !this.#used) {
      this.#used = true;
      return this.#body;
    }
    return new TextDecoder().decode(this.#take());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.#take().buffer as ArrayBuffer;
  }

  protected checkUnused(): void {
    if (this.#used) throw new TypeError('cannot clone: the body has been read');
  }
}

interface LightRequestInit {
  method?: string;
  headers?: HeadersInput;
  body?: unknown;
  signal?: AbortSignal | null;
}

/** The methods the Fetch standard upper-cases; any other is kept as written. */
const NORMALIZED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);

export class LightRequest extends LightBody {
  get [Symbol.toStringTag](): string {
    return 'Request';
  }

  readonly url: string;
  readonly method: string;
  readonly headers: LightHeaders;
  readonly signal: AbortSignal;

  constructor(input: string | URL | LightRequest, init: LightRequestInit = {}) {
    const from = input instanceof LightRequest ? input : undefined;
    const body = init.body !== undefined ? init.body : from?.body;
    super(body);
    this.url = new URL(from ? from.url : String(input)).href;
    const method = init.method ?? from?.method ?? 'GET';
    this.method = NORMALIZED_METHODS.has(method.toUpperCase()) ? method.toUpperCase() : method;
    if (body != null && (this.method === 'GET' || this.method === 'HEAD')) {
      throw new TypeError('a GET or HEAD request cannot have a body');
    }
    this.headers = new LightHeaders(init.headers ?? from?.headers);
    this.signal = init.signal ?? from?.signal ?? new AbortController().signal;
  }

  clone(): LightRequest {
    this.checkUnused();
    return new LightRequest(this);
  }
}

interface LightResponseInit {
  status?: number;
  statusText?: string;
  headers?: HeadersInput;
}

export class LightResponse extends LightBody {
  get [Symbol.toStringTag](): string {
    return 'Response';
  }

  readonly status: number;
  readonly statusText: string;
  readonly headers: LightHeaders;
  readonly type = 'default';
  readonly redirected = false;
  readonly url = '';

  constructor(body?: unknown, init: LightResponseInit = {}) {
    super(body);
    this.status = init.status ?? 200;
    if (!Number.isInteger(this.status) || this.status < 200 || this.status > 599) {
      throw new RangeError(`invalid response status: ${this.status}`);
    }
    if (body != null && [204, 205, 304].includes(this.status)) {
      throw new TypeError(`a ${this.status} response cannot have a body`);
    }
    this.statusText = init.statusText ?? '';
    this.headers = new LightHeaders(init.headers);
    if (typeof body === 'string' && !this.headers.has('content-type')) {
      this.headers.set('content-type', 'text/plain;charset=UTF-8');
    }
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  clone(): LightResponse {
    this.checkUnused();
    return new LightResponse(this.body, this);
  }

  static json(data: unknown, init: LightResponseInit = {}): LightResponse {
    const headers = new LightHeaders(init.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new LightResponse(JSON.stringify(data), { ...init, headers });
  }
}

const CLASSES = { Headers: LightHeaders, Request: LightRequest, Response: LightResponse };

declare global {
  /** In the snapshot's script only (scripts/bundle.mjs): how its code reaches `Headers`, `Request` and `Response`. */
  var __platWeb: { light: typeof CLASSES | null } | undefined;
}

function putLightClasses(): void {
  for (const [name, value] of Object.entries(CLASSES)) {
    // Deleted first: from Node.js 22 on, redefining a lazy global loads it (Node's HTTP client); deleting does not.
    delete (globalThis as Record<string, unknown>)[name];
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
  }
}

/**
 * Puts the light classes in place of the globals, for the rest of the process, while Node's are still unloaded (its
 * HTTP client not loaded, the globals still lazy getters); once anything has loaded them (a `fetch()` too), nothing
 * changes, so no process ever mixes the two. Returns whether they were installed. Only the `plat` binary calls this,
 * for a command that runs in-process.
 */
export function installLightFetch(): boolean {
  // Whether Node's classes are still unloaded is read from the list of loaded modules: not from the globals, which
  // from Node.js 22 on are lazy data properties that reading (even their descriptor) loads.
  const loaded = (process as { moduleLoadList?: string[] }).moduleLoadList?.some((m) => m.includes('undici')) ?? true;
  if (loaded) return false;
  putLightClasses();
  return true;
}

/**
 * Puts the light classes in place of the globals for a while, whatever their state, and returns the undo, which puts
 * back what was there (Node's lazy getters included). For the snapshot's warm-up and for tests: nothing else in the
 * process may use fetch meanwhile.
 */
export function useLightFetch(): () => void {
  // In the snapshot's script, the classes are reached through `__platWeb` (scripts/bundle.mjs): the globals stay as
  // they are (from Node.js 22 on, saving one to put it back would load Node's HTTP client, which fails there).
  const web = globalThis.__platWeb;
  if (web) {
    web.light = CLASSES;
    return () => {
      web.light = null;
    };
  }
  const saved = Object.keys(CLASSES).map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)] as const);
  putLightClasses();
  return () => {
    for (const [name, descriptor] of saved) {
      if (descriptor) Object.defineProperty(globalThis, name, descriptor);
      else delete (globalThis as Record<string, unknown>)[name];
    }
  };
}
