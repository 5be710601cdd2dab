import { tmpdir } from 'node:os';
import { pages } from '../../client/client.js';
import { stopwatch } from '../../client/stopwatch.js';
import type { UserListQuery } from '../../contract/users.js';
import type { Context } from '../context.js';
import { done, type Output } from '../output/result.js';
import { statusLine } from '../output/status-line.js';
import { warn } from '../output/terminal.js';
import { csvWriter } from './export-csv.js';
import { type ExportOptions, formatOf } from './export-options.js';
import { openSpool } from './export-spool.js';
import { fileTarget, stdoutTarget, type Target } from './export-target.js';
import { teamsByUser } from './export-teams.js';
import { jsonWriter, type UsersWriter } from './export-writer.js';

/** A running count on stderr, drawn only on a terminal and without `--quiet`; cleared when done. */
function progress(ctx: Context) {
  const line = statusLine(ctx.io.stderr, ctx.io.stderrTty && !ctx.globals().quiet);
  const elapsed = stopwatch();
  return {
    users: (count: number) => {
      const rate = Math.round(count / Math.max(elapsed() / 1000, 0.001));
      line.show(`Exported ${count} users (${rate}/s)…`);
    },
    clear: line.clear,
  };
}

const plural = (n: number) => `${n} ${n === 1 ? 'user' : 'users'}`;

/**
 * `plat users export`: every user of the organization (or those of one status), page by page, to stdout or a file,
 * with each one's teams (the pages carry their ids; the teams are read first, for their names). Memory stays flat whatever the organization's size: one page at
 * a time, written with backpressure; CSV goes through a spool on disk (see csvWriter).
 */
export async function exportUsers(o: ExportOptions, ctx: Context): Promise<Output> {
  const format = formatOf(o, ctx.globals().json === true);
  // The file first: a directory that does not exist is refused before anything is asked of the platform.
  const target: Target = o.output === undefined ? stdoutTarget(ctx.io.stdout) : fileTarget(o.output, ctx.deps.cwd);
  const shown = progress(ctx);
  const warnings: string[] = [];
  let count = 0;
  try {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    const teams = await teamsByUser(client, org);
    const writer: UsersWriter =
      format === 'csv'
        ? csvWriter(target, teams, openSpool(target.dir ?? tmpdir()), { bom: o.bom })
        : jsonWriter(target, teams, format === 'jsonl');
    try {
      // Oldest first: an import then creates them in the order they came.
      const first = { status: o.status, sort: 'created_at', order: 'asc' } as const;
      for await (const users of pages((q: UserListQuery) => client.users.list(org, q), first, { expand: 'teams' })) {
        await writer.page(users);
        count += users.length;
        shown.users(count);
      }
      warnings.push(...(await writer.end()));
    } finally {
      writer.close();
    }
    await target.finish();
  } catch (err) {
    target.abandon();
    throw err;
  } finally {
    shown.clear();
  }
  for (const warning of warnings) warn(ctx, warning);
  return done(`Exported ${plural(count)} to ${target.name}`);
}
