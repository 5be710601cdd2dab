/** How a kind of record is shown: its columns in lists, its fields in detail, and its id for `-o ids`. */
export interface View<T = any> {
  columns: Column<T>[];
  /** Fields of the detail view of one record (default: `columns`). */
  detail?: Column<T>[];
  /** The identifier `-o ids` prints (default: `id`). */
  id?: (record: T) => string;
}

/** One column: a header and how to get the cell's value; `status` cells are coloured on a terminal. */
export interface Column<T = any> {
  header: string;
  get: (record: T) => unknown;
  status?: boolean;
}

/** Shorthand for a column that shows one field. */
export function col<T = any>(header: string, field: string, opts: { status?: boolean } = {}): Column<T> {
  return { header, get: (r) => (r as Record<string, unknown>)[field], ...opts };
}

/** A cell as text: null and undefined are empty, arrays comma-joined, objects `k=v` pairs. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(cellText).join(',');
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${k}=${cellText(v)}`)
      .join(',');
  }
  return String(value);
}

/** The id of a record for `-o ids`. */
export function recordId(view: View, record: unknown): string {
  return view.id ? view.id(record) : cellText((record as { id?: unknown }).id);
}
