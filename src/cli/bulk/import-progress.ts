import type { OutStream } from '../output/io.js';
import { statusLine } from '../output/status-line.js';

/** How often the line is redrawn at most. */
const FRAME_MS = 100;

/** What the progress line shows: rows done, and how far the input has been read (bytes of `size`, for a file). */
export interface ProgressState {
  rows: number;
  failed: number;
  read: number;
  size: number | undefined;
}

/** The progress line of an import on a terminal; on a pipe (or with `--quiet`) it draws nothing. */
export interface Progress {
  update(state: ProgressState): void;
  /** Prints a line of its own (the progress line is drawn again below it). */
  say(line: string): void;
  /** Clears the line, for good. */
  clear(): void;
}

/** `m:ss` (or `h:mm:ss`). */
function duration(seconds: number): string {
  const s = Math.round(seconds);
  const [h, m, r] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const mm = h > 0 ? String(m).padStart(2, '0') : String(m);
  return `${h > 0 ? `${h}:` : ''}${mm}:${String(r).padStart(2, '0')}`;
}

/** The line: `Importing users.csv  ████░░░░ 45%  12000 rows  2300 rows/s  ETA 0:24  3 failed`. */
export function progressLine(label: string, s: ProgressState, elapsedMs: number, width = 20): string {
  const parts = [`Importing ${label}`];
  const fraction = s.size ? Math.min(1, s.read / s.size) : undefined;
  if (fraction !== undefined) {
    const full = Math.floor(fraction * width);
    parts.push(`${'█'.repeat(full)}${'░'.repeat(width - full)} ${Math.floor(fraction * 100)}%`);
  }
  parts.push(`${s.rows} rows`);
  if (elapsedMs >= 1000) {
    parts.push(`${Math.round((s.rows * 1000) / elapsedMs)} rows/s`);
    if (fraction !== undefined && fraction > 0)
      parts.push(`ETA ${duration(((elapsedMs / fraction) * (1 - fraction)) / 1000)}`);
  }
  if (s.failed > 0) parts.push(`${s.failed} failed`);
  return parts.join('  ');
}

/** A progress line on `stream` when `draw`, timed by `now` (milliseconds). */
export function progress(stream: OutStream, draw: boolean, label: string, now: () => number): Progress {
  const start = now();
  let last = Number.NEGATIVE_INFINITY;
  const line = statusLine(stream, draw);
  return {
    update(state) {
      if (!draw) return;
      const t = now();
      if (t - last < FRAME_MS) return;
      last = t;
      const width = Math.max(20, Math.min(stream.columns ?? 80, 200)) - 1;
      line.show(progressLine(label, state, t - start).slice(0, width));
    },
    say: line.say,
    clear: line.clear,
  };
}
