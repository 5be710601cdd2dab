import type { Command } from 'commander';
import type { Whoami } from '../../contract/auth.js';
import type { Context } from '../context.js';
import { record } from '../output/result.js';
import type { Column } from '../output/view.js';
import { asLeaf } from '../verb.js';

const columns: Column<Whoami>[] = [
  { header: 'TYPE', get: (w) => w.type },
  { header: 'USER', get: (w) => w.user.email },
  { header: 'ORGANIZATION', get: (w) => `${w.organization.name} (${w.organization.id})` },
  { header: 'SCOPES', get: (w) => w.scopes },
  { header: 'EXPIRES', get: (w) => w.expiresAt },
];
const detail: Column<Whoami>[] = [
  ...columns.slice(0, 3),
  { header: 'USER ID', get: (w) => w.user.id },
  { header: 'API KEY', get: (w) => (w.apiKey ? `${w.apiKey.name} (${w.apiKey.id})` : null) },
  { header: 'SESSION', get: (w) => w.sessionId },
  // How the session was signed in (RFC 8176 amr: pwd, otp, hwk, mfa, sso…), docs/mfa.md.
  { header: 'SIGNED IN WITH', get: (w) => (w.amr ? w.amr.join(' ') : null) },
  ...columns.slice(3),
];
const whoamiView = { columns, detail, id: (w: Whoami) => w.user.id };

/** `plat whoami` */
export function register(cmd: Command, ctx: Context): void {
  asLeaf<Record<string, never>>(cmd, ctx, {
    summary: 'Who the credential acts as: user, organization, type, scopes and expiry (GET /auth/whoami)',
    examples: ['plat whoami', 'plat --profile prod whoami --json'],
    parse: () => ({}),
    run: async (_o, ctx) => record(await (await ctx.client()).auth.whoami(), whoamiView),
  });
}
