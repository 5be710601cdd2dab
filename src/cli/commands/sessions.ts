import type { Command } from 'commander';
import type { Context } from '../context.js';
import { userOrSelf } from '../names.js';
import { done, list as listOf, record } from '../output/result.js';
import { col } from '../output/view.js';
import { addVerbs, verb } from '../verb.js';
import { sessionView } from '../views.js';

const U = 'user_8Jq2kX5mN1pR4sT7vW9y';

const list = verb<{ user?: string }>({
  name: 'list',
  args: '[user]',
  summary: "List a user's active sessions (default: your own)",
  examples: ['plat sessions list', `plat sessions list ${U} --json`],
  parse: ([user]) => ({ user }),
  run: async (o, ctx) => {
    const user = await userOrSelf(ctx, o.user, 'give the user (id or e-mail)');
    return listOf((await (await ctx.client()).sessions.list(user)).data, sessionView);
  },
});

const revoke = verb<{ id: string; user?: string }>({
  name: 'revoke',
  args: '<session-id>',
  summary: 'Revoke one session: its tokens stop working at once',
  examples: [
    'plat sessions revoke sess_1Vb6nK3wQz8Tr5Lp2Xm9 --yes',
    `plat sessions revoke sess_1Vb6nK3wQz8Tr5Lp2Xm9 --user ${U}`,
  ],
  options: (c) => c.option('--user <user>', 'whose session, by id or e-mail (default: your own)'),
  parse: ([id], o) => ({ id, user: o.user }),
  confirm: (o) => `revoke session ${o.id}`,
  run: async (o, ctx) => {
    const user = await userOrSelf(ctx, o.user, 'give the user (id or e-mail)');
    await (await ctx.client()).sessions.revoke(user, o.id);
    return done(`Revoked session ${o.id}.`);
  },
});

const revokedView = {
  columns: [col('USER', 'userId'), col('REVOKED', 'revoked')],
  id: (r: { userId: string }) => r.userId,
};

const revokeAll = verb<{ user?: string; keepCurrent: boolean }>({
  name: 'revoke-all',
  summary: 'Revoke every session of a user (default: your own), optionally keeping this one',
  examples: ['plat sessions revoke-all --keep-current --yes', `plat sessions revoke-all --user ${U} --yes`],
  options: (c) => {
    c.option('--user <user>', 'whose sessions, by id or e-mail (default: your own)');
    c.option('--keep-current', 'keep the session this command runs in');
  },
  parse: (_args, o) => ({ user: o.user, keepCurrent: o.keepCurrent === true }),
  confirm: (o) => `revoke every session of ${o.user ?? 'your user'}${o.keepCurrent ? ' but the current one' : ''}`,
  run: async (o, ctx) => {
    const user = await userOrSelf(ctx, o.user, 'give the user (id or e-mail)');
    const { revoked } = await (await ctx.client()).sessions.revokeAll(user, {
      keepCurrent: o.keepCurrent ? 'true' : 'false',
    });
    return record({ userId: user, revoked }, revokedView, true);
  },
});

/** `plat sessions …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [list, revoke, revokeAll]);
}
