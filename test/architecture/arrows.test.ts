import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The arrows of ../shared/DESIGN.md, checked on the import graph of src/ (issue 14): a folder imports only the folders
// below it; the CLI reaches the platform only through its public entry, only from the modules embedded mode and
// `serve` need (REACHES_PLATFORM), at run time only by a dynamic import() (so that remote commands never load
// SQLite); and no module depends on itself, type-only imports included.

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** One import of one module: the file it names (relative to src/), whether only types, whether by import(). */
interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
  dynamic: boolean;
}

/** Every relative import of every module of src/, read with TypeScript's parser. */
function edgesOf(root: string): Edge[] {
  const edges: Edge[] = [];
  const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
  for (const file of files) {
    const path = join(root, file);
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, false);
    const add = (specifier: string, typeOnly: boolean, dynamic: boolean) => {
      if (!specifier.startsWith('.')) return;
      const to = relative(root, resolve(dirname(path), specifier)).replace(/\.js$/, '.ts');
      edges.push({ from: file.split('\\').join('/'), to: to.split('\\').join('/'), typeOnly, dynamic });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        const clause = node.importClause;
        const named =
          clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings : undefined;
        const onlyTypes =
          clause !== undefined &&
          (clause.isTypeOnly ||
            (clause.name === undefined && named !== undefined && named.elements.every((e) => e.isTypeOnly)));
        add(node.moduleSpecifier.text, onlyTypes, false);
      } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        add(node.moduleSpecifier.text, node.isTypeOnly, false);
      } else if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] &&
        ts.isStringLiteral(node.arguments[0])
      ) {
        add(node.arguments[0].text, false, true);
      } else if (
        ts.isImportTypeNode(node) &&
        ts.isLiteralTypeNode(node.argument) &&
        ts.isStringLiteral(node.argument.literal)
      ) {
        add(node.argument.literal.text, true, false);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return edges;
}

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

describe('the arrows of DESIGN.md', () => {
  const edges = edgesOf(SRC);

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

  it('are checked as DESIGN.md draws them', () => {
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
});
