// How users travel through CSV (`plat users export` and `plat users import`, docs/cli.md, "Importing users" and "Exporting users"): the column
// names, and cells that neither a spreadsheet nor the round trip can misread. JSON and JSON lines carry values as
// they are, and need none of this.

/** The column of a user's metadata key: `metadata.KEY`. */
export const METADATA_COLUMN = 'metadata.';

/** Between team names (or ids) in the `teams` column; a `;` or backslash inside a name is escaped with a backslash. */
export const TEAM_SEPARATOR = ';';

/** What a spreadsheet runs as a formula when a cell starts with it (OWASP, "CSV Injection"). */
const FORMULA = /^[=+\-@\t\r]/;
/** A cell that was neutralised or marked as text: an apostrophe before a formula start or another apostrophe. */
const ESCAPED = /^'[=+\-@\t\r']/;
/** A JSON number, or true or false: what a metadata cell reads as when it is not marked as text. */
const TYPED = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false)$/;

/**
 * A text cell as plat writes it: one that a spreadsheet would run as a formula gets an apostrophe before it (which
 * spreadsheets hide), and so does one that already starts with an apostrophe and a formula start or another
 * apostrophe — so that {@link restoreText} gives back exactly what was written, whatever it was.
 */
export function neutraliseText(value: string): string {
  return FORMULA.test(value) || ESCAPED.test(value) ? `'${value}` : value;
}

/** The text a cell of plat's CSV stands for: the inverse of {@link neutraliseText}; other cells are left alone. */
export function restoreText(cell: string): string {
  return ESCAPED.test(cell) ? cell.slice(1) : cell;
}

/** A metadata value as a cell: numbers and booleans as they print, text that would read as one marked with `'`. */
export function metadataCell(value: string | number | boolean): string {
  if (typeof value !== 'string') return String(value);
  const marked = TYPED.test(value) || (value.startsWith("'") && TYPED.test(value.slice(1)));
  return marked ? `'${value}` : neutraliseText(value);
}

/** The metadata value a cell stands for: a number, true or false unless marked as text with a leading `'`. */
export function metadataValue(cell: string): string | number | boolean {
  if (cell === 'true' || cell === 'false') return cell === 'true';
  if (TYPED.test(cell)) return Number(cell);
  if (cell.startsWith("'") && TYPED.test(cell.slice(1))) return cell.slice(1);
  return restoreText(cell);
}

/** The `teams` cell of these names: joined by `;`, each `;` and backslash inside a name escaped with a backslash. */
export function teamsCell(names: readonly string[]): string {
  return names.map((n) => n.replace(/[\\;]/g, (c) => `\\${c}`)).join(TEAM_SEPARATOR);
}

/**
 * The team names (or ids) of a `teams` cell: split on each `;` not escaped; a backslash before `;` or another backslash
 * escapes it (any other is kept as written); trimmed, empty ones left out. The inverse of {@link teamsCell}.
 */
export function teamsOfCell(cell: string): string[] {
  const out: string[] = [];
  let name = '';
  for (let i = 0; i < cell.length; i++) {
    const c = cell[i] as string;
    const next = cell[i + 1];
    if (c === '\\' && (next === ';' || next === '\\')) {
      name += next;
      i++;
    } else if (c === TEAM_SEPARATOR) {
      out.push(name);
      name = '';
    } else name += c;
  }
  out.push(name);
  return out.map((n) => n.trim()).filter((n) => n !== '');
}
