import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

/** JavaScript emitted from some of the project's sources, for child processes that must run without vitest. */
export interface Emitted {
  /** The output directory; `<dir>/src/...` mirrors the sources. It sits under node_modules so packages resolve. */
  dir: string;
  remove(): void;
}

/**
 * Emits the given entry points and everything they import (dynamic imports included) with the project's own
 * TypeScript, without type checking: the children then load exactly the module graph the sources describe.
 */
export function emitSources(entries: string[]): Emitted {
  const dir = join(root, 'node_modules', '.cache', `plat-emit-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const args = [
    tsc,
    '--noCheck',
    '--outDir',
    dir,
    '--rootDir',
    root,
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--target',
    'es2023',
    '--skipLibCheck',
    '--declaration',
    'false',
    '--sourceMap',
    'false',
    ...entries.map((e) => join(root, e)),
  ];
  const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`tsc failed:\n${result.stdout}\n${result.stderr}`);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
