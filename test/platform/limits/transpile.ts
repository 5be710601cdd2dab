import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '../../..');

/**
 * Transpiles `entry` (a source file under the project) and every module it imports at run time into `outDir`, keeping
 * the tree's layout, so that a child `node` process can run the real code without a build. Types are stripped, not
 * checked: other engineers' files may be mid-edit, and these modules' types are checked by `tsc` anyway.
 */
export function transpileTree(entry: string, outDir: string): string {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
      fileName: file,
    });
    const out = join(outDir, relative(ROOT, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, outputText);
    // Type-only imports are gone from the output: what is left is what runs.
    for (const m of outputText.matchAll(/\bfrom\s+'(\.{1,2}\/[^']+)\.js'/g)) {
      visit(resolve(dirname(file), `${m[1]}.ts`));
    }
  };
  const first = resolve(ROOT, entry);
  visit(first);
  return join(outDir, relative(ROOT, first)).replace(/\.ts$/, '.js');
}

/** A scratch directory inside the project (so the child resolves `better-sqlite3` from its node_modules). */
export function scratchDir(name: string): string {
  return join(ROOT, 'node_modules', '.cache', `${name}-${process.pid}-${Date.now()}`);
}
