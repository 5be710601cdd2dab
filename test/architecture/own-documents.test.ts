import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The repository stands on its own (docs/architecture.md): its code, tests, scripts and docs cite its own documents
// (docs/api.md and the others), never the planning texts it was built from, which a clone does not have.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What a citation of a text outside the repository looks like (each spelled in two parts, so this file has none). */
const OUTSIDE = [
  new RegExp(['shared/', '(spec|DESIGN)'].join('')),
  new RegExp(['api', '-contract'].join(''), 'i'),
  new RegExp(['cli', '-contract'].join(''), 'i'),
  new RegExp(['platform-api', '-seed'].join(''), 'i'),
  new RegExp(['\\bcontract', ' §'].join(''), 'i'),
];

/** The repository's own text files: what git tracks, less the generated and binary ones. */
function ownFiles(): string[] {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0');
  return tracked.filter((f) => /\.(ts|js|mjs|cjs|sh|md|json|yml|yaml)$|^\.ci\//.test(f) && f !== 'package-lock.json');
}

describe('the repository stands on its own', () => {
  it('cites no document outside it, in code, tests, scripts or docs', () => {
    const files = ownFiles();
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const file of files) {
      const lines = readFileSync(`${ROOT}${file}`, 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (OUTSIDE.some((re) => re.test(line))) found.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });
});
