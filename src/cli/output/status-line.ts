import type { OutStream } from './io.js';

/** A line of progress drawn over itself on a terminal (carriage return, erase line), and erased when done. */
export interface StatusLine {
  /** Draws `text` in place of what the line showed. */
  show(text: string): void;
  /** Prints a line of its own; the status line is drawn again below it. */
  say(line: string): void;
  /** Erases the line, if it was drawn. */
  clear(): void;
}

/** A status line on `stream` when `draw` (a terminal, without `--quiet`); otherwise it shows nothing and says plainly. */
export function statusLine(stream: OutStream, draw: boolean): StatusLine {
  let shown = '';
  const render = (text: string) => {
    stream.write(`\r\x1b[K${text}`);
    shown = text;
  };
  return {
    show(text) {
      if (draw) render(text);
    },
    say(line) {
      if (!draw) {
        stream.write(`${line}\n`);
        return;
      }
      stream.write(`\r\x1b[K${line}\n`);
      if (shown) render(shown);
    },
    clear() {
      if (draw && shown) stream.write('\r\x1b[K');
      shown = '';
    },
  };
}
