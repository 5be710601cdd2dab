import { isPagedList } from '../contract/common.js';
import {
  type CallArgs,
  type CallResult,
  type Endpoint,
  type EndpointGroup,
  fillPath,
  type ListItem,
  type PathNames,
  pathNames,
  type QueryOf,
  type ServerSentEvent,
  type StreamOptions,
  type Strings,
} from '../contract/endpoint.js';
import { API, type Api } from '../contract/endpoints/index.js';

/** Query-string values; `undefined` ones are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

/** What the derived methods need from the client. */
export interface Requester {
  request<T>(method: string, path: string, opts?: { query?: Query; body?: unknown }): Promise<T>;
  all<T>(path: string, query?: Query, onPage?: (count: number) => void): AsyncGenerator<T>;
  stream(path: string, opts?: StreamOptions): Promise<AsyncIterable<ServerSentEvent>>;
}

/** The client's method for an endpoint: its path parameters in order, then its body or query. */
export type Call<E extends Endpoint> = (...args: CallArgs<E>) => Promise<CallResult<E>>;
/** Every record of a paginated list, page after page by cursor; `onPage` gets the running count. */
export type CallAll<E extends Endpoint> = (
  ...args: [...Strings<PathNames<E['path']>>, query?: QueryOf<E>, onPage?: (count: number) => void]
) => AsyncGenerator<ListItem<E>>;

type PagedNames<G extends EndpointGroup> = {
  [K in keyof G]: [ListItem<G[K]>] extends [never] ? never : K;
}[keyof G];

/** A group of the client: a method per endpoint, and `<name>All` beside each paginated list (`users.listAll`). */
export type ClientGroup<G extends EndpointGroup> = { [K in keyof G]: Call<G[K]> } & {
  [K in PagedNames<G> as `${K & string}All`]: CallAll<G[K]>;
};

/** The client's methods: one per endpoint of the contract's API, in its groups. */
export type Resources = { [K in keyof Api]: ClientGroup<Api[K]> };

function group(r: Requester, endpoints: EndpointGroup): Record<string, unknown> {
  const methods: Record<string, unknown> = {};
  for (const [name, e] of Object.entries(endpoints)) {
    // Read on a method's first call, not when the client is made: a command calls one or two of some seventy.
    let n: number | undefined;
    const parts = (args: unknown[]) => {
      n ??= pathNames(e.path).length;
      return { path: fillPath(e.path, args.slice(0, n) as string[]), rest: args.slice(n) };
    };
    methods[name] = (...args: unknown[]) => {
      const { path, rest } = parts(args);
      if (e.stream === 'sse') return r.stream(path, rest[0] as StreamOptions | undefined);
      return r.request(e.method, path, e.body ? { body: rest[0] } : { query: rest[0] as Query | undefined });
    };
    if (isPagedList(e.response)) {
      if (`${name}All` in endpoints) throw new Error(`${e.operationId}: ${name}All is taken by another endpoint`);
      methods[`${name}All`] = (...args: unknown[]) => {
        const { path, rest } = parts(args);
        return r.all(path, rest[0] as Query | undefined, rest[1] as ((count: number) => void) | undefined);
      };
    }
  }
  return methods;
}

/** The client's methods over a requester, derived from the contract's endpoints. */
export function createResources(r: Requester): Resources {
  return Object.fromEntries(Object.entries(API).map(([name, g]) => [name, group(r, g)])) as Resources;
}
