import { appendFileSync, rmSync, statSync, truncateSync } from 'node:fs';

/** One line of the errors file (docs/cli.md, "Importing users"): the row's physical line, its e-mail, why it failed. */
export interface ErrorLine {
  line: number;
  email: string | null;
  code: string;
  message: string;
}

/**
 * The errors file: JSON lines, appended as batches complete (each batch's failures in line order), made on the first
 * failure and readable by its owner only (it holds e-mail addresses).
 */
export class ErrorsFile {
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
