import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import type { Query } from '../../client/client.js';
import { API_BASE } from '../../contract/endpoint.js';
import { completes } from '../completion-values.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { Output } from '../output/result.js';
import { asLeaf } from '../verb.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** `{orgId}` in a path, as the URL parser leaves it. */
const ORG_PLACEHOLDER = '%7BorgId%7D';

interface ApiOptions {
  method: string;
  path: string;
  query: Query;
  data?: string;
  paginate: boolean;
}

/** The API's base at the start of a path given whole (`/v2/users`, `/v2`; not `/v2x`). */
const UNDER_BASE = new RegExp(`^${API_BASE}(?=/|$)`);

/** `/v2/users/x?a=1` → path `/users/x` (below the base URL) and its query. */
function splitPath(raw: string): { path: string; query: Query } {
  if (!raw.startsWith('/')) throw new UsageError(`the path must start with /, e.g. /organizations (got "${raw}")`);
  const url = new URL(raw, 'http://x');
  return { path: url.pathname.replace(UNDER_BASE, '') || '/', query: Object.fromEntries(url.searchParams) };
}

async function body(ctx: Context, data: string | undefined): Promise<unknown> {
  if (data === undefined) return undefined;
  let text = data;
  if (data.startsWith('@')) {
    const file = data.slice(1);
    try {
      text = file === '-' ? await ctx.stdinText() : readFileSync(resolve(ctx.deps.cwd, file), 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    // The command line cannot be understood (exit 2), as a malformed flag; the API would never see it.
    // Where it goes wrong, never what is there: the body may hold a secret (JSON.parse's message quotes the start).
    const what = data.startsWith('@') ? `--data ${data}` : '--data';
    const at = /position (\d+)/.exec((err as Error).message)?.[1];
    throw new UsageError(`${what} is not valid JSON${at === undefined ? '' : ` (at character ${Number(at) + 1})`}`);
  }
}

async function run(o: ApiOptions, ctx: Context): Promise<Output> {
  // Before any call: stdin can hold the body or the key, not both (else the body would be sent as the API key).
  if (o.data === '@-' && ctx.globals().apiKeyStdin) {
    throw new UsageError('--data @- and --api-key-stdin both need stdin; put the body in a file: --data @FILE');
  }
  const client = await ctx.client();
  // `{orgId}` stands for the acting organization (the URL parser has escaped its braces).
  const path = o.path.includes(ORG_PLACEHOLDER) ? o.path.replaceAll(ORG_PLACEHOLDER, await ctx.orgId()) : o.path;
  if (o.paginate) {
    const items: unknown[] = [];
    for await (const item of client.all(path, o.query)) items.push(item);
    return { kind: 'raw', value: items };
  }
  return {
    kind: 'raw',
    value: await client.request(o.method, path, { query: o.query, body: await body(ctx, o.data) }),
  };
}

/** `plat api METHOD PATH` */
export function register(cmd: Command, ctx: Context): void {
  asLeaf<ApiOptions>(cmd, ctx, {
    args: '<method> <path>',
    argValues: [METHODS],
    summary:
      "Call any endpoint (path below /v2; {orgId} is the acting organization) with the profile's credential; prints the raw JSON answer",
    examples: [
      'plat api GET /organizations',
      'plat api PATCH /users/user_8Jq2kX5mN1pR4sT7vW9y --data \'{"name":"Ada"}\'',
      'plat api GET "/organizations/{orgId}/users?status=active" --paginate',
      'plat api POST /organizations/org_5Wq8nT1zKd4Yb7Hs2Pv6/teams --data @team.json',
    ],
    options: (c) => {
      c.addOption(completes(new Option('--data <json>', 'request body: JSON, @FILE, or @- for stdin'), '@files'));
      c.option('--paginate', 'GET every page of a list and print one JSON array');
    },
    parse: ([method, path], o) => {
      const m = String(method).toUpperCase();
      if (!(METHODS as readonly string[]).includes(m))
        throw new UsageError(`unknown method "${method}": use ${METHODS.join(', ')}`);
      if (o.paginate && m !== 'GET') throw new UsageError('--paginate works with GET only');
      return { method: m, ...splitPath(path), data: o.data, paginate: o.paginate === true };
    },
    run,
  });
}
