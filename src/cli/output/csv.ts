/** RFC 4180: a field with a comma, quote, CR or LF is quoted, quotes doubled; records end with CRLF. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** Renders a header and rows as RFC 4180 CSV. */
export function toCsv(header: string[], rows: string[][]): string {
  return [header, ...rows].map((r) => `${r.map(csvField).join(',')}\r\n`).join('');
}
