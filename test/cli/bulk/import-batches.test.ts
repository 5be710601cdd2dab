import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Batch, REQUEST_BODY_LIMIT, toBatches } from '../../../src/cli/bulk/import-batches.js';
import {
  loadCheckpoint,
  newCheckpoint,
  ResumeFilter,
  type RunOptions,
  recordDone,
  saveCheckpoint,
} from '../../../src/cli/bulk/import-checkpoint.js';
import { ErrorsFile } from '../../../src/cli/bulk/import-errors.js';
import { progressLine } from '../../../src/cli/bulk/import-progress.js';
import { failedRow, type Row } from '../../../src/cli/bulk/import-rows.js';

const dir = mkdtempSync(join(tmpdir(), 'plat-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Rows on lines 2, 3…: items, but every `failEvery`-th row failed here. */
function rows(n: number, opts: { failEvery?: number; bytes?: number; edit?: number } = {}): Row[] {
  return Array.from({ length: n }, (_, i) => {
    const line = i + 2;
    const email = `user${i}@example.com`;
    if (opts.failEvery && (i + 1) % opts.failEvery === 0) return failedRow(line, email, 'validation_error', 'bad');
    const name = i === opts.edit ? 'Edited' : `User ${i}`;
    const metadata = opts.bytes ? { note: 'x'.repeat(opts.bytes) } : undefined;
    return { line, email, item: { email, name, ...(metadata && { metadata }) } };
  });
}

async function batches(input: Row[], size: number): Promise<Batch[]> {
  const out: Batch[] = [];
  for await (const b of toBatches(input, size)) out.push(b);
  return out;
}

const shape = (b: Batch) => `${b.seq}: lines ${b.firstLine}–${b.lastLine}, ${b.items.length}/${b.rows.length} sent`;

describe('batches', () => {
  it('hold at most --batch-size rows, those failed here included, and map each item to its row', async () => {
    const made = await batches(rows(7, { failEvery: 3 }), 3);
    expect(made.map(shape)).toEqual(['0: lines 2–4, 2/3 sent', '1: lines 5–7, 2/3 sent', '2: lines 8–8, 1/1 sent']);
    const first = made[0] as Batch;
    expect(first.itemRows).toEqual([0, 1]);
    expect(first.items.map((i) => i.email)).toEqual(['user0@example.com', 'user1@example.com']);
  });

  it('are the same for the same rows (digest included), and differ in the digest when a row does', async () => {
    const [a, b, c] = await Promise.all([
      batches(rows(10), 4),
      batches(rows(10), 4),
      batches(rows(10, { edit: 5 }), 4),
    ]);
    expect(a.map((x) => x.hash)).toEqual(b.map((x) => x.hash));
    expect(c.map((x, i) => x.hash === a[i]?.hash)).toEqual([true, false, true]);
  });

  it('are split to keep each request body within the limit, and a row too large for any fails', async () => {
    // 250 rows of ~10 kB each: ~2.5 MB, so three requests, whatever the batch size allows.
    const made = await batches(rows(250, { bytes: 10_000 }), 1000);
    expect(made.length).toBe(3);
    for (const b of made) {
      const body = JSON.stringify({ users: b.items, mode: 'upsert', invite: false, dryRun: false });
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(REQUEST_BODY_LIMIT);
    }
    expect(made.flatMap((b) => b.rows.map((r) => r.line))).toEqual(rows(250).map((r) => r.line));
    const big = rows(2, { bytes: REQUEST_BODY_LIMIT });
    const huge = await batches(big, 10);
    expect(huge[0]?.rows.map((r) => ('error' in r ? r.error.message : 'sent'))).toEqual(
      big.map((r) => {
        const size = Buffer.byteLength(JSON.stringify('item' in r && r.item));
        return `too large to send: ${size} bytes, where a request holds at most ${REQUEST_BODY_LIMIT}`;
      }),
    );
  });
});

describe('the checkpoint', () => {
  const options: RunOptions = { format: 'csv', mode: 'create', invite: false, batchSize: 2 };
  const totals = { created: 2, updated: 0, unchanged: 0, failed: 0 };

  it('records batches done out of order, as a prefix and the rest, and a resumed run skips exactly those', async () => {
    const made = await batches(rows(10), 2); // 5 batches
    const data = newCheckpoint('/data/people.csv', options);
    for (const seq of [1, 0, 3]) recordDone(data, made[seq] as Batch, totals, 10 * seq);
    expect(data.prefix).toMatchObject({ batches: 2, lastLine: 5 });
    expect(data.done.map((d) => [d.seq, d.firstLine, d.lastLine])).toEqual([[3, 8, 9]]);
    expect(data).toMatchObject({ rows: 6, totals: { created: 6 }, errorsBytes: 30 });

    const path = join(dir, 'people.csv.errors.jsonl.checkpoint');
    saveCheckpoint(path, data);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const loaded = loadCheckpoint(path);
    expect(loaded).toEqual(data);
    const filter = new ResumeFilter(loaded as typeof data, path);
    expect(made.map((b) => filter.wasDone(b))).toEqual([true, true, false, true, false]);
    filter.end(made.length);
  });

  it('stops a resumed run when the input changed where it was done: before sending anything in the prefix', async () => {
    const data = newCheckpoint('/data/people.csv', options);
    for (const b of await batches(rows(10), 2)) if (b.seq !== 2) recordDone(data, b, totals, 0);
    const message = (edit: number) => {
      const filter = new ResumeFilter(data, 'cp');
      return batches(rows(10, { edit }), 2).then((made) => {
        try {
          for (const b of made) filter.wasDone(b);
          return 'resumed';
        } catch (err) {
          return (err as Error).message.replace(/\. Delete.*/, '');
        }
      });
    };
    expect(await message(1)).toBe(
      'the input changed since the checkpoint was written (its first 5 lines, imported then): which rows were done can no longer be told',
    );
    expect(await message(4)).toBe('resumed'); // batch 2 was not done: it is sent as it is now
    expect(await message(7)).toBe(
      'the input changed since the checkpoint was written (lines 8–9, imported then): which rows were done can no longer be told',
    );
    expect(() => new ResumeFilter(data, 'cp').end(1)).toThrow('its first 5 lines');
  });

  it('refuses a file that is not a checkpoint, and reads a missing one as none', () => {
    const path = join(dir, 'not-a-checkpoint');
    writeFileSync(path, '{"hello": 1}');
    expect(() => loadCheckpoint(path)).toThrow(
      `${path} is not a checkpoint of plat users import: delete it to start over`,
    );
    expect(loadCheckpoint(join(dir, 'missing'))).toBeUndefined();
  });
});

describe('the errors file', () => {
  it('is removed by a new run, made on the first failure (0600), and cut back to the checkpoint by a resumed one', () => {
    const path = join(dir, 'errors.jsonl');
    writeFileSync(path, 'from an earlier run\n');
    const fresh = ErrorsFile.fresh(path);
    expect(() => statSync(path)).toThrow();
    fresh.append([{ line: 2, email: 'a@example.com', code: 'conflict', message: 'differs' }]);
    const bytes = fresh.bytes;
    expect(statSync(path).mode & 0o777).toBe(0o600);
    fresh.append([{ line: 9, email: null, code: 'validation_error', message: 'email: missing' }]);
    let short = false;
    const resumed = ErrorsFile.resumed(path, bytes, () => {
      short = true;
    });
    expect(readFileSync(path, 'utf8')).toBe(
      '{"line":2,"email":"a@example.com","code":"conflict","message":"differs"}\n',
    );
    expect([resumed.bytes, short]).toEqual([bytes, false]);
    ErrorsFile.resumed(path, bytes + 100, () => {
      short = true;
    });
    expect(short).toBe(true);
  });
});

describe('the progress line', () => {
  it('shows the share of the file read, rows, rate and time left once a second has passed', () => {
    const s = { rows: 4500, failed: 3, read: 450, size: 1000 };
    expect(progressLine('people.csv', s, 500, 10)).toBe('Importing people.csv  ████░░░░░░ 45%  4500 rows  3 failed');
    expect(progressLine('people.csv', s, 3000, 10)).toBe(
      'Importing people.csv  ████░░░░░░ 45%  4500 rows  1500 rows/s  ETA 0:04  3 failed',
    );
    expect(progressLine('stdin', { ...s, failed: 0, size: undefined }, 3000)).toBe(
      'Importing stdin  4500 rows  1500 rows/s',
    );
  });
});
