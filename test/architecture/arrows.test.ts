import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Edge, importsOf, type Module, readModules } from './import-graph.js';

// The arrows of docs/architecture.md ("Which folder imports which"), checked on the import graph of src/ (issues 14
// and 24): a folder imports only the folders below it; the CLI reaches the platform only through its public entry,
// only from the modules embedded mode and `serve` need (REACHES_PLATFORM), at run time only by a dynamic import() (so
// that remote commands never load SQLite); no module depends on itself, type-only imports included; and every load
// can be checked: its specifier is written out and names a module of src/ (.ts, or the .js that src/startup/ keeps).

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/**
 * Specifiers written for the place the build copies a module to, and the module of src/ they name there (keyed
 * `file specifier`). scripts/bundle.mjs makes bin/plat.js of startup/entry.js, beside dist/bundle/main.js: the bundle
 * whose entry is startup/main.ts.
 */
const ELSEWHERE: Record<string, string> = {
  'startup/entry.js ../dist/bundle/main.js': 'startup/main.ts',
};

/**
 * The loads whose specifier is computed at run time, which this test cannot follow, each with why it is safe. Any
 * other such load fails the test: write the specifier out, or add it here with its reason.
 */
const UNANALYSABLE: Record<string, string> = {
  // globalThis.__platRequire: at run time the snapshot's script loads what a V8 snapshot cannot hold (the SQLite addon,
  // keytar, undici, the CommonJS copies of jose and openid-client) from beside the bundle. Only the
  // script's require() calls it (scripts/bundle.mjs's banner), for what the bundle leaves out: packages, never src/.
  'startup/snapshot.ts: load(id)': 'packages and addons only, named by scripts/bundle.mjs',
};

/** What each folder of src/ may import besides itself. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  contract: [],
  platform: ['contract'],
  client: ['contract'],
  config: ['contract'],
  auth: ['contract', 'config', 'client'],
  cli: ['contract', 'client', 'auth', 'config', 'platform'],
  // Start-up (the bundle's and the snapshot's entries, the warm-up) sits above the CLI: it evaluates every folder for
  // the snapshot and runs a command over the platform; it reaches the platform through its public entry only.
  startup: ['contract', 'client', 'auth', 'config', 'platform', 'cli'],
};
/**
 * The public entries other folders may name: the platform's two (the platform, and its HTTP listener for `plat serve`),
 * and the client's.
 */
const ENTRY: Record<string, readonly string[]> = {
  platform: ['platform/index.ts', 'platform/server.ts'],
  client: ['client/client.ts'],
};

/**
 * The CLI modules that may reach the platform (by import() or for types), and the entries each may name: only where
 * embedded mode or `serve` needs it.
 */
const REACHES_PLATFORM: Record<string, readonly string[]> = {
  /** The embedded platform: its transport, its bootstrap, opening it for `plat local`. */
  'cli/embedded.ts': ['platform/index.ts'],
  /** `plat serve`: the HTTP listener, and its SMTP settings checked before it starts. */
  'cli/commands/serve.ts': ['platform/index.ts', 'platform/server.ts'],
};

/** The imports that break an arrow, as `from -> to`. */
function violations(edges: readonly Edge[]): string[] {
  const out = new Set<string>();
  for (const e of edges) {
    const [a, b] = [e.from.split('/')[0] as string, e.to.split('/')[0] as string];
    if (a === b) continue;
    const allowed = (MAY_IMPORT[a] ?? []).includes(b);
    const throughEntry =
      ENTRY[b] === undefined || ((a === 'cli' || a === 'startup') && b === 'client') || ENTRY[b].includes(e.to);
    // The CLI loads the platform only when a command needs it: by import(), or for types.
    const loadsPlatform = a === 'cli' && b === 'platform' && !e.dynamic && !e.typeOnly;
    const outOfPlace = a === 'cli' && b === 'platform' && !(REACHES_PLATFORM[e.from] ?? []).includes(e.to);
    if (!allowed || !throughEntry || loadsPlatform || outOfPlace) out.add(`${e.from} -> ${e.to}`);
  }
  return [...out].sort();
}

/** The modules that depend on themselves, through any chain of imports (type-only and import() included). */
function cycles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (next.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the arrows of docs/architecture.md', () => {
  const modules = readModules(SRC);
  const { edges, unanalysable, unresolved } = importsOf(modules, ELSEWHERE);

  it('reads the imports of every module: static, type-only, re-exports and import()', () => {
    const from = (file: string) => edges.filter((e) => e.from === file);
    expect(from('cli/embedded.ts')).toContainEqual({
      from: 'cli/embedded.ts',
      to: 'platform/index.ts',
      typeOnly: true,
      dynamic: false,
    });
    expect(from('cli/embedded.ts')).toContainEqual({
      from: 'cli/embedded.ts',
      to: 'platform/index.ts',
      typeOnly: false,
      dynamic: true,
    });
    expect(from('contract/organizations.ts').map((e) => e.to)).toContain('contract/limits.ts');
  });

  it("reads src/startup/'s JavaScript too, and resolves a .js specifier to the .ts or .js that exists", () => {
    const files = modules.map((m) => m.file);
    expect(files).toContain('startup/entry.js');
    expect(files).toContain('startup/build-snapshot.js');
    expect(edges).toContainEqual({ from: 'startup/entry.js', to: 'startup/main.ts', typeOnly: false, dynamic: true });
    expect(edges).toContainEqual({
      from: 'startup/snapshot.ts',
      to: 'startup/main.ts',
      typeOnly: false,
      dynamic: false,
    });
  });

  it('can check every load: each specifier written out (or listed in UNANALYSABLE), each naming a module', () => {
    expect(unanalysable).toEqual(Object.keys(UNANALYSABLE));
    expect(unresolved).toEqual([]);
  });

  it('point down only: no import breaks one', () => {
    expect(violations(edges)).toEqual([]);
  });

  it('let the CLI reach the platform only from the modules listed, each of which does', () => {
    for (const [file, entries] of Object.entries(REACHES_PLATFORM)) {
      const reached = edges.filter((e) => e.from === file && e.to.startsWith('platform/')).map((e) => e.to);
      expect(new Set(reached), file).toEqual(new Set(entries));
    }
  });

  it('leave no cycle, type-only imports included', () => {
    expect(cycles(edges)).toEqual([]);
  });

  it('are checked as docs/architecture.md draws them', () => {
    const edge = (from: string, to: string, o: Partial<Edge> = {}): Edge => ({
      from,
      to,
      typeOnly: false,
      dynamic: false,
      ...o,
    });
    expect(
      violations([
        edge('contract/a.ts', 'platform/index.ts', { typeOnly: true }),
        edge('platform/x.ts', 'client/client.ts'),
        edge('client/x.ts', 'platform/index.ts', { dynamic: true }),
        edge('auth/x.ts', 'cli/main.ts'),
        edge('config/x.ts', 'auth/login.ts'),
        edge('cli/x.ts', 'platform/store/db.ts', { dynamic: true }),
        edge('cli/z.ts', 'platform/server.ts'),
        edge('cli/y.ts', 'platform/index.ts'),
        edge('auth/y.ts', 'client/retry.ts'),
        edge('startup/x.ts', 'platform/store/db.ts'),
        edge('cli/w.ts', 'startup/main.ts'),
      ]),
    ).toEqual([
      'auth/x.ts -> cli/main.ts',
      'auth/y.ts -> client/retry.ts',
      'cli/w.ts -> startup/main.ts',
      'cli/x.ts -> platform/store/db.ts',
      'cli/y.ts -> platform/index.ts',
      'cli/z.ts -> platform/server.ts',
      'client/x.ts -> platform/index.ts',
      'config/x.ts -> auth/login.ts',
      'contract/a.ts -> platform/index.ts',
      'platform/x.ts -> client/client.ts',
      'startup/x.ts -> platform/store/db.ts',
    ]);
    // Only the listed CLI modules reach the platform, each only through the entries listed for it.
    expect(
      violations([
        edge('cli/commands/users.ts', 'platform/index.ts', { dynamic: true }),
        edge('cli/context.ts', 'platform/index.ts', { typeOnly: true }),
        edge('cli/embedded.ts', 'platform/server.ts', { dynamic: true }),
        edge('cli/commands/local.ts', 'platform/server.ts', { typeOnly: true }),
      ]),
    ).toEqual([
      'cli/commands/local.ts -> platform/server.ts',
      'cli/commands/users.ts -> platform/index.ts',
      'cli/context.ts -> platform/index.ts',
      'cli/embedded.ts -> platform/server.ts',
    ]);
    expect(
      violations([
        edge('cli/embedded.ts', 'platform/index.ts', { dynamic: true }),
        edge('cli/embedded.ts', 'platform/index.ts', { typeOnly: true }),
        edge('cli/commands/serve.ts', 'platform/server.ts', { dynamic: true }),
        edge('cli/x.ts', 'client/retry.ts'),
        edge('auth/x.ts', 'client/client.ts'),
        edge('platform/x.ts', 'contract/users.ts'),
        edge('startup/x.ts', 'platform/index.ts'),
        edge('startup/x.ts', 'client/transports.ts'),
        edge('startup/x.ts', 'cli/main.ts'),
      ]),
    ).toEqual([]);
    expect(cycles([edge('a.ts', 'b.ts'), edge('b.ts', 'c.ts', { typeOnly: true }), edge('c.ts', 'a.ts')])).toEqual([
      ['a.ts', 'b.ts', 'c.ts'],
    ]);
    expect(cycles([edge('a.ts', 'a.ts')])).toEqual([['a.ts']]);
    expect(cycles([edge('a.ts', 'b.ts'), edge('b.ts', 'c.ts')])).toEqual([]);
  });

  /** The imports of a few modules written here (src/-relative paths), beside the files `others` names. */
  const read = (snippets: Record<string, string>, others: readonly string[] = []) =>
    importsOf([
      ...Object.entries(snippets).map(([file, text]): Module => ({ file, text })),
      ...others.map((file): Module => ({ file, text: '' })),
    ]);
  const PLATFORM = ['platform/index.ts', 'platform/store/db.ts', 'config/config.ts'];

  it('read a template literal in import(): without substitutions as its text, with them as unanalysable', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal's source text, as a module holds it
    const computed = 'import(`../platform/${name}.js`)';
    const r = read(
      {
        'cli/a.ts': 'export const p = () => import(`../platform/index.js`);',
        'cli/b.ts': `export const p = (name: string) => ${computed};`,
        'cli/c.ts': 'export const p = (name: string) => import(name);',
      },
      PLATFORM,
    );
    expect(r.edges).toEqual([{ from: 'cli/a.ts', to: 'platform/index.ts', typeOnly: false, dynamic: true }]);
    expect(r.unanalysable).toEqual([`cli/b.ts: ${computed}`, 'cli/c.ts: import(name)']);
    // What it found is checked as any import(): here from a CLI module not allowed to reach the platform.
    expect(violations(r.edges)).toEqual(['cli/a.ts -> platform/index.ts']);
  });

  it('read require(), plain or made by createRequire (under any name), as a static import', () => {
    const r = read(
      {
        'cli/a.ts': [
          "import { createRequire } from 'node:module';",
          'const require = createRequire(import.meta.url);',
          "export const db = require('../platform/store/db.js');",
        ].join('\n'),
        'cli/b.ts': [
          "import { createRequire as make } from 'node:module';",
          'let load: NodeJS.Require | undefined;',
          'export const c = () => { load ??= make(import.meta.url); return load(`../config/config.js`); };',
        ].join('\n'),
        'cli/c.ts':
          "import mod from 'node:module';\nexport const i = mod.createRequire(import.meta.url)('../platform/index.js');",
        'startup/x.js': "const b = require('better-sqlite3');\nexport const db = require('../platform/store/db.js');",
        'cli/d.ts':
          "import { createRequire } from 'node:module';\nexport const f = (id: string) => createRequire(import.meta.url)(id);",
      },
      PLATFORM,
    );
    const edge = (from: string, to: string): Edge => ({ from, to, typeOnly: false, dynamic: false });
    expect(r.edges).toEqual([
      edge('cli/a.ts', 'platform/store/db.ts'),
      edge('cli/b.ts', 'config/config.ts'),
      edge('cli/c.ts', 'platform/index.ts'),
      edge('startup/x.js', 'platform/store/db.ts'),
    ]);
    expect(r.unanalysable).toEqual(['cli/d.ts: createRequire(import.meta.url)(id)']);
    expect(violations(r.edges)).toEqual([
      'cli/a.ts -> platform/store/db.ts',
      'cli/c.ts -> platform/index.ts',
      'startup/x.js -> platform/store/db.ts',
    ]);
  });

  it('read JavaScript modules, resolve .js to the .ts or the .js that exists, and list what names nothing', () => {
    const r = read(
      {
        'startup/entry.js': "await import('./main.js');\nimport { b } from './build.js';\nawait import('../gone.js');",
        'startup/build.js': "export { run } from '../cli/main.js';\nexport const b = 1;",
        'startup/x.mjs': "import '../contract/users.js';",
      },
      ['startup/main.ts', 'cli/main.ts', 'contract/users.ts'],
    );
    const edge = (from: string, to: string, dynamic = false): Edge => ({ from, to, typeOnly: false, dynamic });
    expect(r.edges).toEqual([
      edge('startup/entry.js', 'startup/main.ts', true),
      edge('startup/entry.js', 'startup/build.js'),
      edge('startup/build.js', 'cli/main.ts'),
      edge('startup/x.mjs', 'contract/users.ts'),
    ]);
    expect(r.unresolved).toEqual(['startup/entry.js: ../gone.js']);
    // A specifier written for the place the build copies a module to names what it names there.
    expect(
      importsOf([{ file: 'startup/entry.js', text: "import('../dist/x.js')" }], {
        'startup/entry.js ../dist/x.js': 'startup/main.ts',
      }),
    ).toEqual({
      edges: [edge('startup/entry.js', 'startup/main.ts', true)],
      unanalysable: [],
      unresolved: [],
    });
  });
});
