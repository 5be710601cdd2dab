import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { cliReference } from '../../src/cli/reference.js';

it('docs/cli-reference.md is generated from the current program (run `npm run docs:cli` when this fails)', async () => {
  const onDisk = readFileSync(new URL('../../docs/cli-reference.md', import.meta.url), 'utf8');
  expect(onDisk).toBe(await cliReference());
});

it('every command has an example', async () => {
  const reference = await cliReference();
  const sections = reference.split(/\n#{3,4} /).slice(1);
  const leaves = sections.filter((s) => s.includes('Usage: `'));
  expect(leaves.length).toBeGreaterThan(50);
  for (const s of leaves) expect(s, s.split('\n')[0]).toContain('```sh\n');
});
