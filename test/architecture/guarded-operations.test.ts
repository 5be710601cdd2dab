import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readModules } from './import-graph.js';

// The permission of a project's endpoints, and of a user's own sessions and second factors, is checked by the request
// pipeline before their operations run (src/platform/http/permit.ts): the operations check nothing of it themselves.
// So what a route binds of those modules must be called by the routes alone; a command or a batch that called one
// directly would skip the check. Helpers the modules export for each other (loadProject, guardOwners…) are not bound.

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const GUARDED = ['projects', 'members', 'environments', 'sessions', 'mfa'].map((m) => `platform/operations/${m}.ts`);
const ROUTES = 'platform/http/routes/';

/** Each value import of `file`'s text: the names it takes and the module of src/ it takes them from. */
function namedImports(file: string, text: string): { names: string[]; from: string }[] {
  const found: { names: string[]; from: string }[] = [];
  for (const m of text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s*from\s*'(\.[^']+)'/g)) {
    if (m[1]) continue;
    const names = (m[2] as string)
      .split(',')
      .map((n) => n.trim())
      .filter((n) => n && !n.startsWith('type '))
      .map((n) => n.split(/\s+as\s+/)[0] as string);
    const from = posix.join(posix.dirname(file), (m[3] as string).replace(/\.js$/, '.ts'));
    found.push({ names, from });
  }
  return found;
}

describe('operations whose permission the pipeline checks', () => {
  const modules = readModules(SRC);
  const bound = new Map<string, Set<string>>(GUARDED.map((g) => [g, new Set()]));
  for (const { file, text } of modules.filter((m) => m.file.startsWith(ROUTES))) {
    for (const { names, from } of namedImports(file, text)) for (const n of names) bound.get(from)?.add(n);
  }

  it('are bound by the routes', () => {
    for (const [module, names] of bound) expect(names.size, module).toBeGreaterThan(0);
    expect(bound.get('platform/operations/projects.ts')).toContain('updateProject');
    expect(bound.get('platform/operations/sessions.ts')).toContain('revokeAllSessions');
  });

  it('are called from the routes alone', () => {
    const elsewhere: string[] = [];
    for (const { file, text } of modules.filter((m) => !m.file.startsWith(ROUTES))) {
      for (const { names, from } of namedImports(file, text)) {
        for (const n of names) if (bound.get(from)?.has(n)) elsewhere.push(`${file} imports ${n} from ${from}`);
      }
    }
    expect(elsewhere).toEqual([]);
  });
});
