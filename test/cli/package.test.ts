import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The files `npm pack` would put in the package (the build already made: its scripts are not run). */
function packedFiles(): string[] {
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path) ?? [];
}

describe('the package', () => {
  it("ships a source map beside every file of the bundle, linked from it (plat serve's stack traces)", () => {
    const files = packedFiles();
    const bundle = files.filter((f) => /^dist\/bundle\/.+\.js$/.test(f));
    expect(bundle).toContain('dist/bundle/main.js');
    for (const file of bundle) {
      expect(files).toContain(`${file}.map`);
      const name = file.slice(file.lastIndexOf('/') + 1);
      expect(readFileSync(join(ROOT, file), 'utf8').endsWith(`\n//# sourceMappingURL=${name}.map\n`), file).toBe(true);
    }
    // The maps locate the sources; they do not carry their text (a stack trace does not need it).
    const map = JSON.parse(readFileSync(join(ROOT, 'dist/bundle/main.js.map'), 'utf8'));
    expect(map.sources).toContain('../../src/cli/main.ts');
    expect(map.sourcesContent).toBeUndefined();
  });
});
