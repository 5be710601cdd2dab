import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { writeFileAtomic } from '../../config/atomic-write.js';
import { UsageError } from '../errors.js';
import type { Batch } from './import-batches.js';
import type { ImportFormat } from './import-options.js';
import type { ProviderName } from './providers/provider.js';

/** What decides the batches and what they do: a run resumes only with the same. (`--concurrency` may differ.) */
export interface RunOptions {
  /** plat's own format; or, with `from`, none: the layout is the export's. */
  format?: ImportFormat;
  from?: ProviderName;
  mode: 'create' | 'upsert';
  replacePasswords?: boolean;
  invite: boolean;
  batchSize: number;
}

/** How many rows came out each way. */
export interface Totals {
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
}

/** A batch done, as the checkpoint records it. */
interface DoneBatch {
  seq: number;
  firstLine: number;
  lastLine: number;
  hash: string;
}

/**
 * The checkpoint file (JSON): the batches done so far — as a prefix (batches 0…n-1, with a chained digest of their
 * contents) plus those done beyond it, out of order, each with its own digest — the outcomes of their rows, and the
 * length the errors file had once their failures were in it.
 */
export interface CheckpointData {
  version: 1;
  /** The absolute path of the file imported, or `-` for stdin. */
  input: string;
  options: RunOptions;
  prefix: { batches: number; lastLine: number; hash: string };
  done: DoneBatch[];
  rows: number;
  totals: Totals;
  errorsBytes: number;
}

/** The chained digest of a prefix after one more batch. */
const chain = (prefix: string, batch: string) => createHash('sha256').update(`${prefix}:${batch}`).digest('hex');

/** Reads a checkpoint; undefined when there is none. One that cannot be read is a usage error (exit 2). */
export function loadCheckpoint(path: string): CheckpointData | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read the checkpoint ${path}: ${(err as Error).message}`);
  }
  try {
    const data = JSON.parse(text) as CheckpointData;
    if (data.version === 1 && Array.isArray(data.done) && data.prefix && data.totals) return data;
  } catch {}
  throw new UsageError(`${path} is not a checkpoint of plat users import: delete it to start over`);
}

/** A new, empty checkpoint. */
export function newCheckpoint(input: string, options: RunOptions): CheckpointData {
  const totals = { created: 0, updated: 0, unchanged: 0, failed: 0 };
  return {
    version: 1,
    input,
    options,
    prefix: { batches: 0, lastLine: 0, hash: '' },
    done: [],
    rows: 0,
    totals,
    errorsBytes: 0,
  };
}

/** The checkpoint's options as words, to say how they differ from the command line's. */
export const describeOptions = (o: RunOptions) =>
  `${o.from ? `--from ${o.from}` : `--format ${o.format}`}${o.mode === 'upsert' ? ' --upsert' : ''}` +
  `${o.replacePasswords ? ' --replace-passwords' : ''}${o.invite ? ' --invite' : ''} --batch-size ${o.batchSize}`;

/**
 * Which batches of a resumed run were done: those of the prefix (checked together once the last of them is read: no
 * batch after them is given before, so nothing is sent if the file changed there) and those recorded beyond it,
 * each checked by its digest. A done batch whose rows changed stops the run (exit 2): which of its rows were done
 * could no longer be told.
 */
export class ResumeFilter {
  private chained = '';

  constructor(
    private readonly data: CheckpointData,
    private readonly path: string,
  ) {}

  /** Whether `batch` was done (then it is skipped); throws when the input changed where it was done. */
  wasDone(batch: Batch): boolean {
    const { prefix } = this.data;
    if (batch.seq < prefix.batches) {
      this.chained = chain(this.chained, batch.hash);
      if (batch.seq === prefix.batches - 1)
        this.check(this.chained === prefix.hash, `its first ${prefix.lastLine} lines`);
      return true;
    }
    const done = this.data.done.find((d) => d.seq === batch.seq);
    if (!done) return false;
    this.check(done.hash === batch.hash, `lines ${done.firstLine}–${done.lastLine}`);
    return true;
  }

  /** Called when the input ends: one shorter than the prefix changed too. */
  end(batches: number): void {
    const { prefix } = this.data;
    this.check(batches >= prefix.batches, `its first ${prefix.lastLine} lines`);
  }

  private check(same: boolean, where: string): void {
    if (same) return;
    throw new UsageError(
      `the input changed since the checkpoint was written (${where}, imported then): which rows were done can no ` +
        `longer be told. Delete ${this.path} and run again without --resume to import it all (what is already there ` +
        'comes out unchanged)',
    );
  }
}

/** Records a batch as done in `data` (prefix or beyond it), with its outcomes and the errors file's new length. */
export function recordDone(data: CheckpointData, batch: Batch, totals: Totals, errorsBytes: number): void {
  data.done.push({ seq: batch.seq, firstLine: batch.firstLine, lastLine: batch.lastLine, hash: batch.hash });
  data.done.sort((a, b) => a.seq - b.seq);
  while (data.done[0]?.seq === data.prefix.batches) {
    const next = data.done.shift() as DoneBatch;
    data.prefix = { batches: next.seq + 1, lastLine: next.lastLine, hash: chain(data.prefix.hash, next.hash) };
  }
  data.rows += batch.rows.length;
  for (const k of ['created', 'updated', 'unchanged', 'failed'] as const) data.totals[k] += totals[k];
  data.errorsBytes = errorsBytes;
}

/** Writes the checkpoint atomically (a temporary file flushed and renamed over it), readable by its owner only. */
export function saveCheckpoint(path: string, data: CheckpointData): void {
  writeFileAtomic(path, `${JSON.stringify(data)}\n`, 'directory of the checkpoint');
}

/** Removes the checkpoint once the import is complete. */
export function removeCheckpoint(path: string): void {
  rmSync(path, { force: true });
}
