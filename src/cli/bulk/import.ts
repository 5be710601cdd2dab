// `plat users import` (docs/cli.md, "Importing users"): rows streamed from a file, cut into batches, sent `--concurrency`
// at a time to POST …/users/batch; failures to the errors file; a checkpoint after every batch for `--resume`.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { NetworkError } from '../../client/errors.js';
import { backoffDelay, isTransient } from '../../client/retry.js';
import type { UserBatch, UserBatchItem, UserBatchReply } from '../../contract/users.js';
import type { Context } from '../context.js';
import { CliError, InvalidValueError, UsageError } from '../errors.js';
import { quoted } from '../output/quote.js';
import type { Output } from '../output/result.js';
import { outputMode, renderOutput, warn } from '../output/terminal.js';
import { withoutHashes } from './hashes.js';
import { type Batch, toBatches } from './import-batches.js';
import {
  describeOptions,
  loadCheckpoint,
  newCheckpoint,
  ResumeFilter,
  type RunOptions,
  recordDone,
  removeCheckpoint,
  saveCheckpoint,
  type Totals,
} from './import-checkpoint.js';
import { type ErrorLine, ErrorsFile, type Failures, StderrFailures } from './import-errors.js';
import { firebaseHashConfig } from './import-from-options.js';
import type { ImportOptions } from './import-options.js';
import { progress } from './import-progress.js';
import type { Row } from './import-rows.js';
import { formatOf, openSource, type Reading, type Source } from './import-source.js';
import { TeamMaker, withAbsent, withoutAbsent } from './import-teams.js';
import { PROVIDERS } from './providers/index.js';
import { FirebaseParameters } from './providers/provider.js';

/** What an import did (the `--json` output): outcomes of the whole import, an earlier run's included. */
export interface ImportSummary extends Totals {
  rows: number;
  /** Rows of batches an earlier run had done (`--resume`), among `rows`. */
  earlier: number;
  dryRun: boolean;
  /** Every row of the input was read and its batch done. */
  complete: boolean;
  /** The errors file, when a row failed (null when failed rows went to stderr). */
  errors: string | null;
  /** With `--create-teams`, the teams this run created (in a dry run, would create), A to Z. */
  teamsCreated: string[];
}

/** Where the import stands while it runs. */
interface State {
  totals: Totals;
  rows: number;
  /** Rows read in this run (batches skipped on `--resume` included): for progress. */
  seen: number;
  /** Why it stopped early: an error, Ctrl-C, or input it could not read past (from the batch at `from`). */
  fatal?: unknown;
  interrupted: boolean;
  halted?: { line: number; message: string; from: number; rows: Row[] };
  /** Rows that failed naming a team the organization does not have (for the hint at `--create-teams`). */
  unknownTeams: number;
}

const zero = (): Totals => ({ created: 0, updated: 0, unchanged: 0, failed: 0 });
const emptyBatch = (): Batch => ({ seq: -1, firstLine: 0, lastLine: 0, rows: [], items: [], itemRows: [], hash: '' });

/**
 * The errors file's path, and the checkpoint's beside it; none when failed rows go to stderr (stdin without
 * `--errors`, or `--errors -`), and then there is no checkpoint, so nothing to `--resume`.
 */
function paths(o: ImportOptions): { errors: string; checkpoint: string } | undefined {
  const errors = o.errors ?? (o.file === '-' ? '-' : `${o.file}.errors.jsonl`);
  if (errors !== '-') return { errors, checkpoint: `${errors}.checkpoint` };
  if (o.resume) {
    throw new UsageError(
      '--resume needs --errors FILE: the checkpoint it resumes from is kept beside the errors file, and failed rows ' +
        'going to stderr leave none',
    );
  }
  return undefined;
}

/** Whether two paths name one file: the same path, or (both existing) the same device and inode. */
function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    const [x, y] = [statSync(a), statSync(b)];
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/** Imports users; see docs/cli.md "Importing users" for every decision. */
export async function importUsers(o: ImportOptions, ctx: Context): Promise<Output> {
  if (o.dryRun && o.resume) throw new UsageError('--dry-run changes nothing, so it has nothing to --resume');
  const shown = paths(o);
  const at = (p: string) => resolve(ctx.deps.cwd, p);
  /** The checkpoint's absolute path; undefined when failures go to stderr. */
  const checkpointAt = shown && at(shown.checkpoint);
  const firebase = new FirebaseParameters(await firebaseHashConfig(o.firebase, ctx));
  const reading: Reading = o.from ? { provider: PROVIDERS[o.from], firebase } : { format: formatOf(o.file, o.format) };
  const options: RunOptions = {
    ...('format' in reading ? { format: reading.format } : { from: o.from }),
    mode: o.upsert ? 'upsert' : 'create',
    ...(o.replacePasswords ? { replacePasswords: true } : {}),
    invite: o.invite,
    batchSize: o.batchSize,
  };
  const input = o.file === '-' ? '-' : at(o.file);
  // The errors file is replaced at the start of a run: never the input, nor the checkpoint.
  if (shown && input !== '-' && (sameFile(input, at(shown.errors)) || sameFile(input, at(shown.checkpoint)))) {
    throw new UsageError(`--errors ${shown.errors}: that is the file being imported; name another`);
  }
  const earlier = checkpointAt === undefined ? undefined : loadCheckpoint(checkpointAt);
  if (shown && earlier && !o.resume) {
    throw new UsageError(
      `${shown.checkpoint} records an unfinished import (${earlier.rows} rows done): add --resume to go on with it, ` +
        'or delete it to start over',
    );
  }
  if (shown && earlier && earlier.input !== input) {
    throw new UsageError(`${shown.checkpoint} is the checkpoint of another input (${earlier.input}): give that one`);
  }
  if (shown && earlier && describeOptions(earlier.options) !== describeOptions(options)) {
    throw new UsageError(
      `${shown.checkpoint} was written by an import with ${describeOptions(earlier.options)}: resume with the same ` +
        'options, or delete it to start over',
    );
  }
  const earlierRows = earlier?.rows ?? 0;
  const source = await openSource(input, o.file, reading, () => ctx.io.stdin);
  const [client, org] = [await ctx.client(), await ctx.orgId()];
  const checkpoint = earlier ?? newCheckpoint(input, options);
  const state: State = {
    totals: { ...checkpoint.totals },
    rows: checkpoint.rows,
    seen: 0,
    interrupted: false,
    unknownTeams: 0,
  };
  const label = o.file === '-' ? 'stdin' : o.file;
  const bar = progress(ctx.io.stderr, ctx.io.stderrTty && !ctx.globals().quiet, label, () => ctx.clock().getTime());
  // On stderr, failed rows are printed even with --quiet: they are the only record of what failed.
  const errorsFile: Failures = !shown
    ? new StderrFailures(bar.say)
    : earlier
      ? ErrorsFile.resumed(at(shown.errors), earlier.errorsBytes, () =>
          warn(
            ctx,
            `${shown.errors} holds less than the checkpoint recorded: failures of earlier batches may be missing`,
          ),
        )
      : ErrorsFile.fresh(at(shown.errors));
  const tick = () =>
    bar.update({ rows: state.seen, failed: state.totals.failed, read: source.read(), size: source.size });

  // The Firebase project's parameters go with the batches that have a Firebase hash only (they are a secret).
  const body = (items: UserBatchItem[]): UserBatch => ({
    users: items,
    mode: options.mode,
    invite: o.invite,
    dryRun: o.dryRun,
    ...(o.replacePasswords ? { replacePasswords: true } : {}),
    ...(firebase.config && items.some((i) => typeof i.passwordHash === 'object')
      ? { hashConfig: firebase.config }
      : {}),
  });
  const post = sender(ctx, (b: UserBatch) => client.users.batch(org, b));
  const teams = o.createTeams
    ? new TeamMaker(
        () => client.teams.listAll(org),
        (name) => client.teams.create(org, { name }),
        o.dryRun,
      )
    : undefined;
  /** Sends a batch, the teams it names made first with `--create-teams` (in a dry run, left out and accounted for). */
  const send = async (batch: Batch): Promise<UserBatchReply> => {
    const absent = (await teams?.prepare(batch.items)) ?? new Set<string>();
    if (absent.size === 0) return post(body(batch.items));
    const reply = await post(body(withoutAbsent(batch.items, absent)));
    return withAbsent(reply, batch.items, absent, options.mode);
  };
  /** A batch answered (or all failed here): its failures written, its outcomes counted, the checkpoint saved. */
  const settle = (batch: Batch, reply: UserBatchReply | undefined, record: boolean) => {
    const { totals, lines } = outcomes(batch, reply);
    errorsFile.append(lines);
    state.unknownTeams += lines.filter((l) => l.code === 'validation_error' && UNKNOWN_TEAM.test(l.message)).length;
    if (record) {
      recordDone(checkpoint, batch, totals, errorsFile.bytes);
      if (!o.dryRun && checkpointAt) saveCheckpoint(checkpointAt, checkpoint);
    }
    for (const k of ['created', 'updated', 'unchanged', 'failed'] as const) state.totals[k] += totals[k];
    state.rows += batch.rows.length;
  };

  // The filter reads the checkpoint as it was when the run began; the run records its own batches in `checkpoint`.
  const filter = shown && earlier ? new ResumeFilter(structuredClone(earlier), shown.checkpoint) : undefined;
  const work = pending(source, o.batchSize, filter);
  const stopping = () => state.fatal !== undefined || state.interrupted;
  const unsubscribe = ctx.deps.onShutdown?.(() => {
    state.interrupted = true;
    source.close(); // so that no worker waits for input that may never come (a pipe)
    bar.say(
      'Stopping: finishing the batches in flight (Ctrl-C again stops at once; they are then sent again on --resume)',
    );
  });
  const worker = async () => {
    while (!stopping()) {
      try {
        const next = await work.next().catch((err: unknown) => {
          if (state.interrupted) return { done: true as const, value: undefined };
          throw err;
        });
        if (next.done || stopping()) return;
        const { batch, done } = next.value;
        state.seen += batch.rows.length;
        const halt = source.halt.at;
        if (halt && batch.lastLine === halt.line) {
          // The input could not be read past this batch's last row: its rows are not sent, so that after the file
          // is fixed, --resume sends them with the rows that follow. Its failures are written once every other
          // batch is done, after the checkpoint's last word on the errors file.
          state.halted = { ...halt, from: batch.firstLine, rows: batch.rows.filter((r) => 'error' in r) };
        } else if (!done) settle(batch, batch.items.length > 0 ? await send(batch) : undefined, true);
        tick();
      } catch (err) {
        state.fatal ??= err;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: o.concurrency }, worker));
  } finally {
    unsubscribe?.();
    await work.return(undefined).catch(() => {});
    bar.clear();
  }

  if (state.halted) settle({ ...emptyBatch(), rows: state.halted.rows }, undefined, false);
  const complete = !stopping() && !state.halted;
  if (complete && !o.dryRun && checkpointAt) removeCheckpoint(checkpointAt);
  const summary: ImportSummary = {
    ...state.totals,
    rows: state.rows,
    earlier: earlierRows,
    dryRun: o.dryRun,
    complete,
    errors: state.totals.failed > 0 && shown ? shown.errors : null,
    teamsCreated: teams?.created ?? [],
  };
  const told: Told = { label, listed: !shown };
  const output: Output =
    outputMode(ctx.globals()) === 'json'
      ? { kind: 'raw', value: summary }
      : { kind: 'done', message: summaryLine(summary, told) };
  const failure = failureOf(state, summary, told);
  if (!failure) return output;
  // Nothing was read (a refused header, an unreadable checkpoint…): the error says it all.
  if (state.seen > 0 || state.rows > 0) await renderOutput(ctx, output);
  throw failure;
}

/** The API's message for a row naming teams the organization does not have (operations/invitations.ts). */
const UNKNOWN_TEAM = /^teams: unknown teams?: /;

/** The batches still to do, each marked `done` when a resumed run's checkpoint says it was. */
async function* pending(source: Source, size: number, filter: ResumeFilter | undefined) {
  let count = 0;
  for await (const batch of toBatches(source.rows, size)) {
    count++;
    yield { batch, done: filter?.wasDone(batch) ?? false };
  }
  filter?.end(count);
}

/**
 * Sends a batch: `429`s are retried by the client (honouring `Retry-After`); connection failures are retried here,
 * with the client's backoff, since sending a batch again does nothing twice (what was done comes out `unchanged`).
 */
function sender(ctx: Context, post: (body: UserBatch) => Promise<UserBatchReply>) {
  const retries = ctx.globals().maxRetries ?? 3;
  const sleep = ctx.deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  return async (body: UserBatch): Promise<UserBatchReply> => {
    for (let retry = 0; ; retry++) {
      try {
        return await post(body);
      } catch (err) {
        if (!(err instanceof NetworkError) || !isTransient(err.errno)) throw err;
        if (retry >= retries) {
          const tries = `after ${retry} ${retry === 1 ? 'retry' : 'retries'}`;
          throw new NetworkError(`${err.message} ${tries}`, { cause: err.cause, retries: retry, errno: err.errno });
        }
        await sleep(backoffDelay(retry, Math.random));
      }
    }
  };
}

/** A batch's outcomes and its failures (rows refused here, items the API failed), in line order. */
function outcomes(batch: Batch, reply: UserBatchReply | undefined): { totals: Totals; lines: ErrorLine[] } {
  const totals = zero();
  const lines: ErrorLine[] = [];
  if (reply && reply.results.length !== batch.items.length) {
    throw new Error(`the server answered a batch of ${batch.items.length} users with ${reply.results.length} results`);
  }
  for (const r of reply?.results ?? []) {
    const row = batch.rows[batch.itemRows[r.index] ?? -1];
    if (!row) throw new Error(`the server answered for an item ${r.index} that the batch does not have`);
    totals[r.outcome]++;
    if (r.outcome !== 'failed') continue;
    const error = r.error ?? { code: 'internal_error', message: 'failed, with no reason given' };
    // Whatever the API says of an item, no text of its password hash is written or shown.
    const message = withoutHashes(error.message, batch.items[r.index]);
    lines.push({ line: row.line, email: r.email || row.email, code: error.code, message });
  }
  for (const row of batch.rows) {
    if (!('error' in row)) continue;
    totals.failed++;
    lines.push({ line: row.line, email: row.email, code: row.error.code, message: row.error.message });
  }
  lines.sort((a, b) => a.line - b.line);
  return { totals, lines };
}

/** How the summary speaks of the input (`label`), and whether failed rows were `listed` on stderr (no checkpoint). */
export interface Told {
  label: string;
  listed: boolean;
}

/** What to do after a run that stopped early: resume from the checkpoint, or (without one) run it all again. */
const goOn = (t: Told) =>
  t.listed ? 'run it again to go on (what was imported comes out unchanged)' : 'run the same command with --resume';

/** The summary on stderr: `Imported users.csv: 10 rows — 7 created, 1 updated, 1 unchanged, 1 failed; …`. */
export function summaryLine(s: ImportSummary, t: Told): string {
  const label = t.label;
  const head = s.dryRun
    ? `Dry run of ${label}, nothing changed`
    : s.complete
      ? `Imported ${label}`
      : `Stopped importing ${label}`;
  const counts = `${s.created} created, ${s.updated} updated, ${s.unchanged} unchanged, ${s.failed} failed`;
  const made = s.teamsCreated;
  // Names from the file, quoted with their control characters escaped: a summary runs nothing on a terminal.
  const names = made.map(quoted);
  const shownTeams = names.length > 10 ? [...names.slice(0, 10), `and ${names.length - 10} more`] : names;
  const teams =
    made.length === 0
      ? ''
      : `; ${made.length} ${made.length === 1 ? 'team' : 'teams'} ${s.dryRun ? 'would be ' : ''}created: ` +
        shownTeams.join(', ');
  const earlier = s.earlier > 0 ? ` (${s.earlier} of them by an earlier run)` : '';
  const errors = s.errors
    ? `; failed rows are in ${s.errors}`
    : s.failed > 0 && t.listed
      ? '; failed rows are listed above'
      : '';
  const resume = s.complete || s.dryRun ? '' : `; ${goOn(t)}${t.listed ? '' : ' to go on'}`;
  return `${head}: ${s.rows} ${s.rows === 1 ? 'row' : 'rows'}${earlier} — ${counts}${teams}${errors}${resume}.`;
}

/** The error an import ends with, if any: the failure that stopped it (its own exit code), Ctrl-C (130), or 7. */
function failureOf(state: State, s: ImportSummary, t: Told): unknown {
  if (state.fatal !== undefined) return state.fatal;
  if (state.interrupted) return new CliError('interrupted', 'interrupted');
  if (state.halted) {
    const h = state.halted;
    const again = s.dryRun ? 'run it again' : goOn(t);
    return new InvalidValueError(
      `line ${h.line}: ${h.message}: the rest of the input cannot be read, so lines ${h.from} on were not sent; ` +
        `fix it, then ${again}`,
    );
  }
  if (s.failed > 0) {
    const rows = s.failed === 1 ? 'row' : 'rows';
    const where = s.errors ? `see ${s.errors} (line, e-mail, reason)` : 'they are listed above';
    const n = state.unknownTeams;
    const hint =
      n === 0
        ? ''
        : `; ${n === s.failed ? (n === 1 ? 'it names' : 'they name') : `${n} of them ${n === 1 ? 'names' : 'name'}`} ` +
          'teams that do not exist: ' +
          'add --create-teams to create them';
    return new InvalidValueError(`${s.failed} ${rows} failed: ${where}${hint}`);
  }
  return undefined;
}
