import type { Command } from 'commander';
import type { Context } from '../context.js';
import type { ActiveCredential } from '../credential.js';
import type { Output } from '../output/result.js';
import { col } from '../output/view.js';
import { addVerbs, verb } from '../verb.js';

/** One line of `auth status`: what was chosen and why. */
interface StatusRow {
  field: string;
  value: string;
  why: string;
}

const statusView = {
  columns: [col('SETTING', 'field'), col('VALUE', 'value'), col('WHY', 'why')],
  id: (r: StatusRow) => r.value,
};

function credentialRow(c: ActiveCredential | undefined, storeLocation: string): StatusRow {
  if (!c) return { field: 'credential', value: 'none', why: `nothing in PLAT_API_KEY, PLAT_TOKEN or ${storeLocation}` };
  return { field: 'credential', value: `${c.type} (${c.source})`, why: c.why };
}

const status = verb<Record<string, never>>({
  name: 'status',
  summary: 'Show the profile, endpoint, organization and credential commands use, and why (never the secret)',
  examples: ['plat auth status', 'plat --profile prod auth status --json'],
  parse: () => ({}),
  run: async (_o, ctx): Promise<Output> => {
    const r = await ctx.settings();
    const credential = await ctx.credential();
    const store = await ctx.credentials();
    const endpoint = r.kind === 'embedded' ? `embedded ${r.db}` : (r.baseUrl as string);
    const rows: StatusRow[] = [
      { field: 'profile', value: r.profile, why: r.why.profile },
      { field: 'endpoint', value: `${endpoint}${r.sandbox ? ' (sandbox)' : ''}`, why: r.why.endpoint },
      { field: 'organization', value: r.org ?? "the credential's own", why: r.why.org },
      credentialRow(credential, store.location),
      { field: 'store', value: store.kind, why: store.location },
    ];
    const json = {
      profile: { name: r.profile, why: r.why.profile },
      endpoint: { kind: r.kind, url: r.baseUrl ?? null, db: r.db ?? null, sandbox: r.sandbox, why: r.why.endpoint },
      organization: { id: r.org ?? null, why: r.why.org },
      credential: credential ? { type: credential.type, source: credential.source, why: credential.why } : null,
      store: { kind: store.kind, location: store.location },
    };
    return { kind: 'list', items: rows, view: statusView, json };
  },
});

/** `plat auth …` (login, logout, whoami and token belong to the sign-in work). */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [status]);
}
