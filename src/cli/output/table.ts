import type { ChalkInstance } from 'chalk';
import Table from 'cli-table3';

const STATUS_COLORS: Record<string, 'green' | 'yellow' | 'red' | 'gray'> = {
  active: 'green',
  accepted: 'green',
  enabled: 'green',
  pending: 'yellow',
  archived: 'gray',
  expired: 'gray',
  disabled: 'gray',
  suspended: 'red',
  revoked: 'red',
  // Domains (plat domains list).
  verified: 'green',
  legacy: 'yellow',
  // Mail delivery (plat local mail --delivery).
  sent: 'green',
  queued: 'yellow',
  sending: 'yellow',
  failed: 'red',
};

/** Colours a status word when colour is allowed (chalk at level 0 returns it unchanged). */
export function colorStatus(color: ChalkInstance, status: string): string {
  const name = STATUS_COLORS[status];
  return name ? color[name](status) : status;
}

/** Tab-separated rows with a header line, for pipes: tabs and newlines in cells become spaces so columns hold. */
export function toTsv(header: string[], rows: string[][]): string {
  const clean = (s: string) => s.replace(/[\t\r\n]+/g, ' ');
  return [header, ...rows].map((r) => `${r.map(clean).join('\t')}\n`).join('');
}

// No colours from cli-table3 itself (chalk decides), and no rule between rows.
const PLAIN = { head: [] as string[], border: [] as string[], compact: true };

/** A terminal table (cli-table3): bold header when colour is allowed. */
export function toTable(color: ChalkInstance, header: string[], rows: string[][]): string {
  const table = new Table({ head: header.map((h) => color.bold(h)), style: PLAIN });
  table.push(...rows);
  return `${table.toString()}\n`;
}

/** A terminal key/value table for one record. */
export function toDetailTable(color: ChalkInstance, pairs: [string, string][]): string {
  const table = new Table({ style: PLAIN });
  for (const [k, v] of pairs) table.push({ [color.bold(k)]: v });
  return `${table.toString()}\n`;
}
