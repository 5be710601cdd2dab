import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import ts from 'typescript';

// The import graph of src/, read with TypeScript's parser (the arrows test checks it): every way a module can load
// another — static imports, re-exports, import types, import(), require() (plain, or made by createRequire) — and
// the loads that cannot be checked because their specifier is computed at run time.

/** One module of src/: its path relative to src/ (with `/`), and its text. */
export interface Module {
  file: string;
  text: string;
}

/** One import of one module: the file it names (relative to src/), whether only types, whether by import(). */
export interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
  dynamic: boolean;
}

/** What the modules import. */
export interface Imports {
  edges: Edge[];
  /** Loads whose specifier is computed at run time (import(`./${x}.js`), require(name)), as `file: the call`. */
  unanalysable: string[];
  /** Relative specifiers that name no module of src/, as `file: specifier`. */
  unresolved: string[];
}

/** The files that are source: TypeScript, and the JavaScript that src/startup/ keeps as it runs (entry.js…). */
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs)$/;

/** Every module of `root` (declaration files aside). */
export function readModules(root: string): Module[] {
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((f) => SOURCE.test(f) && !/\.d\.[mc]?ts$/.test(f))
    .map((f) => ({ file: f.split('\\').join('/'), text: readFileSync(join(root, f), 'utf8') }))
    .sort((a, b) => a.file.localeCompare(b.file));
}

/** The files a specifier may name: the .ts that TypeScript reads for a .js specifier, then the file itself. */
function candidates(path: string): string[] {
  const twin = path
    .replace(/\.js$/, '.ts')
    .replace(/\.mjs$/, '.mts')
    .replace(/\.cjs$/, '.cts');
  // An extensionless specifier only a require() may carry (an ES import must name the file).
  const bare = /\.[cm]?[jt]s$/.test(path) ? [] : ['.ts', '.js', '/index.ts', '/index.js'].map((e) => path + e);
  return [...new Set([twin, path, ...bare])];
}

/**
 * The imports of `modules`. `elsewhere` names what a specifier written for another place means (a module copied out of
 * src/ by the build), keyed `file specifier`.
 */
export function importsOf(modules: readonly Module[], elsewhere: Readonly<Record<string, string>> = {}): Imports {
  const files = new Set(modules.map((m) => m.file));
  const out: Imports = { edges: [], unanalysable: [], unresolved: [] };
  for (const { file, text } of modules) {
    const kind = /\.[mc]?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
    const add = (specifier: string, typeOnly: boolean, dynamic: boolean) => {
      if (!specifier.startsWith('.')) return; // a package or a built-in module
      const path = posix.normalize(posix.join(posix.dirname(file), specifier));
      const to = elsewhere[`${file} ${specifier}`] ?? candidates(path).find((c) => files.has(c));
      if (to === undefined) out.unresolved.push(`${file}: ${specifier}`);
      else out.edges.push({ from: file, to, typeOnly, dynamic });
    };
    /** A load by `call`, whose first argument is the specifier: checked if it is written out, listed if computed. */
    const load = (call: ts.CallExpression, dynamic: boolean) => {
      const arg = call.arguments[0];
      if (arg && (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg))) add(arg.text, false, dynamic);
      else out.unanalysable.push(`${file}: ${call.getText(source).replace(/\s+/g, ' ')}`);
    };
    const requires = requireNames(source);
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
        ts.isImportEqualsDeclaration(node) &&
        ts.isExternalModuleReference(node.moduleReference) &&
        ts.isStringLiteral(node.moduleReference.expression)
      ) {
        add(node.moduleReference.expression.text, node.isTypeOnly, false);
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        load(node, true);
      } else if (ts.isCallExpression(node) && isRequire(node.expression, requires)) {
        // A require() loads its module when it runs, but nothing marks it as lazy: it counts as a static import.
        load(node, false);
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
  return out;
}

/** Whether `callee` is `createRequire` (as imported, under any name, or as `module.createRequire`). */
function isCreateRequire(callee: ts.Expression, names: ReadonlySet<string>): boolean {
  return (
    (ts.isIdentifier(callee) && names.has(callee.text)) ||
    (ts.isPropertyAccessExpression(callee) && callee.name.text === 'createRequire')
  );
}

/** Whether `callee` loads a module the way require() does: `require`, a name bound to one, or `createRequire(…)`. */
function isRequire(callee: ts.Expression, requires: { creators: Set<string>; loaders: Set<string> }): boolean {
  return (
    (ts.isIdentifier(callee) && requires.loaders.has(callee.text)) ||
    (ts.isCallExpression(callee) && isCreateRequire(callee.expression, requires.creators))
  );
}

/**
 * The names that stand for createRequire in a module (imported from node:module, renamed or not), and those that hold
 * a require function: `require` itself, and every variable given createRequire's result (`const r = createRequire(…)`,
 * `r ??= createRequire(…)`), wherever in the module (a name is one name for the whole module: enough for a check).
 */
function requireNames(source: ts.SourceFile): { creators: Set<string>; loaders: Set<string> } {
  const creators = new Set(['createRequire']);
  const loaders = new Set(['require']);
  const assignments = [
    ts.SyntaxKind.EqualsToken,
    ts.SyntaxKind.QuestionQuestionEqualsToken,
    ts.SyntaxKind.BarBarEqualsToken,
    ts.SyntaxKind.AmpersandAmpersandEqualsToken,
  ];
  const made = (e: ts.Expression | undefined) => {
    while (e && (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e)))
      e = e.expression;
    return e !== undefined && ts.isCallExpression(e) && isCreateRequire(e.expression, creators);
  };
  for (const statement of source.statements) {
    if (
      ts.isImportDeclaration(statement) &&
      ts.isStringLiteral(statement.moduleSpecifier) &&
      ['module', 'node:module'].includes(statement.moduleSpecifier.text)
    ) {
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings))
        for (const e of bindings.elements)
          if ((e.propertyName ?? e.name).text === 'createRequire') creators.add(e.name.text);
    }
  }
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && made(node.initializer))
      loaders.add(node.name.text);
    else if (
      ts.isBinaryExpression(node) &&
      assignments.includes(node.operatorToken.kind) &&
      ts.isIdentifier(node.left) &&
      made(node.right)
    )
      loaders.add(node.left.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { creators, loaders };
}
