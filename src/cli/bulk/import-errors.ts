import { appendFileSync, rmSync, statSync, truncateSync } from 'node:fs';

/** One line of the errors file (docs/cli.md, "Importing users"): the row's physical line, its e-mail, why it failed. */
export interface ErrorLine {
  line: number;
  email: string | null;
  code: string;
  message: string;
}

/** Where failed rows go: the errors file, or stderr. */
export interface Failures {
  /** Appends failures (in the order given). */
  append(lines: readonly ErrorLine[]): void;
  /** How much was written: what a checkpoint records (always 0 on stderr, where there is no checkpoint). */
  readonly bytes: number;
}

/** Escapes of the control characters a row's text may hold: a line break, a tab, an escape sequence's ESC. */
const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Control characters as escapes (`\n`, `\x1b`), so that a row's text stays one inert line on a terminal. */
const inert = (text: string) =>
  text.replace(/\p{Cc}/gu, (c) => ESCAPES[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);

/** A failure as stderr shows it: `line 4 bob@example.com: role: …` (`line 3: email: missing` without an e-mail). */
export const failureLine = (l: ErrorLine) =>
  inert(`line ${l.line}${l.email === null ? '' : ` ${l.email}`}: ${l.message}`);

/** Failures on stderr, one line each (`plat users import -` without `--errors`): `say` writes a line. */
export class StderrFailures implements Failures {
  constructor(private readonly say: (line: string) => void) {}

  append(lines: readonly ErrorLine[]): void {
    for (const l of lines) this.say(failureLine(l));
  }

  get bytes(): number {
    return 0;
  }
}

/**
 * The errors file: JSON lines, appended as batches complete (each batch's failures in line order), made on the first
 * failure and readable by its owner only (it holds e-mail addresses).
 */
export class ErrorsFile implements Failures {
  private constructor(
    readonly path: string,
    private size: number,
  ) {}

  /** A new run: the errors file of an earlier one is removed, so that what is there is this run's. */
  static fresh(path: string): ErrorsFile {
    rmSync(path, { force: true });
    return new ErrorsFile(path, 0);
  }

  /**
   * A resumed run: the file as the checkpoint left it — cut back to `bytes` if a batch's failures were written after
   * the last checkpoint (that batch is sent again). `onShort` hears when it holds less than the checkpoint recorded.
   */
  static resumed(path: string, bytes: number, onShort: () => void): ErrorsFile {
    let size = 0;
    try {
      size = statSync(path).size;
    } catch {}
    if (size > bytes && bytes === 0) rmSync(path);
    else if (size > bytes) truncateSync(path, bytes);
    else if (size < bytes) onShort();
    return new ErrorsFile(path, Math.min(size, bytes));
  }

  /** Appends failures (in the order given). */
  append(lines: readonly ErrorLine[]): void {
    if (lines.length === 0) return;
    const text = lines.map((l) => `${JSON.stringify(l)}\n`).join('');
    appendFileSync(this.path, text, { mode: 0o600 });
    this.size += Buffer.byteLength(text);
  }

  /** Its length: what the checkpoint records. */
  get bytes(): number {
    return this.size;
  }
}
