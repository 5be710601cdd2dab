import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSpool } from '../../../src/cli/bulk/export-spool.js';
import { stdoutTarget } from '../../../src/cli/bulk/export-target.js';
import { teamLabels } from '../../../src/cli/bulk/export-teams.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'plat-export-parts-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the spool', () => {
  it('gives back every line in order, across reads that cut through characters, and leaves no file', () => {
    const spool = openSpool(dir);
    // Lines of 1 to 4-byte characters whose total runs over several mebibyte reads, never aligned with them.
    const lines = Array.from({ length: 40_000 }, (_, i) => `${i}:${'é日🎉a'.repeat(i % 13)}${'x'.repeat(i % 101)}`);
    for (let i = 0; i < lines.length; i += 1000) spool.append(`${lines.slice(i, i + 1000).join('\n')}\n`);
    expect(readdirSync(dir)).toEqual([]); // unlinked at once: it lives on through its descriptor only
    const read = [...spool.batches()];
    expect(read.length).toBeGreaterThan(1);
    expect(read.flat()).toEqual(lines);
    spool.close();
    spool.close();
  });

  it('of nothing gives nothing', () => {
    const spool = openSpool(dir);
    expect([...spool.batches()]).toEqual([]);
    spool.close();
  });
});

describe('team labels', () => {
  it('are names (a separator in one included), except one named like another team’s id: its id', () => {
    const team = (id: string, name: string) => ({ id, name, organizationId: 'org_1', createdAt: '' });
    const teams = [team('team_1', 'Design'), team('team_2', 'R;D'), team('team_3', 'team_1'), team('team_4', 'Ops')];
    expect(teamLabels(teams)).toEqual(['Design', 'R;D', 'team_3', 'Ops']);
  });
});

describe('stdout', () => {
  it('is written with backpressure: the export waits for a slow reader, which gets everything in order', async () => {
    const got: string[] = [];
    let waits = 0;
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk, _encoding, done) {
        got.push(String(chunk));
        setTimeout(done, 1);
      },
    });
    slow.on('drain', () => waits++);
    const target = stdoutTarget(slow);
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i} ${'-'.repeat(60)}\n`);
    for (const line of lines) await target.write(line);
    await target.finish();
    await new Promise<void>((resolve) => slow.end(resolve));
    expect(got.join('')).toBe(lines.join(''));
    expect(waits).toBeGreaterThan(0);
    expect(Math.max(...got.map((c) => c.length))).toBeLessThanOrEqual(1 << 17); // by chunks, never all at once
  });
});
