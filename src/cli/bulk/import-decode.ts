// The text encodings `plat users import` reads (docs/cli.md, "Importing users"): UTF-8 with or without a byte order
// mark, and UTF-16 — Excel's "Unicode text" — with a BOM or, told by the NULs of its ASCII header, without.
import { pipeline, type Readable, Transform, type TransformCallback } from 'node:stream';
import { TextDecoder } from 'node:util';
import { InvalidValueError } from '../errors.js';

/** What the input is read as. */
export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be';

/** How many bytes are looked at before the encoding is decided: enough for any BOM and two UTF-16 characters. */
const HEAD = 4;

/** What to do with a workbook or UTF-32. */
const FROM_EXCEL = 'in Excel, save as "CSV UTF-8" or "Unicode text"';

/** Inputs no encoding makes text of: what they are, and what to do instead. */
const REFUSED: { magic: number[]; what: string; instead: string }[] = [
  { magic: [0x50, 0x4b, 0x03, 0x04], what: 'a zip archive (an Excel workbook, .xlsx?)', instead: FROM_EXCEL },
  { magic: [0xd0, 0xcf, 0x11, 0xe0], what: 'an old Excel workbook (.xls?)', instead: FROM_EXCEL },
  { magic: [0xff, 0xfe, 0x00, 0x00], what: 'UTF-32 text', instead: FROM_EXCEL },
  { magic: [0x00, 0x00, 0xfe, 0xff], what: 'UTF-32 text', instead: FROM_EXCEL },
  // An export as some systems let it be downloaded (Auth0's export jobs: docs/migrate.md).
  { magic: [0x1f, 0x8b], what: 'gzip-compressed', instead: 'gunzip it first' },
];

const startsWith = (head: Buffer, magic: readonly number[]) =>
  head.length >= magic.length && magic.every((b, i) => head[i] === b);

/**
 * The encoding of an input by its first bytes, and the length of its byte order mark: a BOM says it (EF BB BF,
 * FF FE, FE FF); without one, a NUL after (or before) each of the first two characters is UTF-16 LE (or BE) — the
 * header of a CSV file, or a JSON text's first characters, are ASCII, and no UTF-8 text starts with a NUL (RFC 4627,
 * section 3, told JSON's encodings apart the same way). Anything else is UTF-8. A workbook, UTF-32 or a gzip file
 * is `refused`, with what to do `instead`.
 */
export function sniff(head: Buffer): { encoding: TextEncoding; bom: number } | { refused: string; instead: string } {
  const refused = REFUSED.find((r) => startsWith(head, r.magic));
  if (refused) return { refused: refused.what, instead: refused.instead };
  if (startsWith(head, [0xef, 0xbb, 0xbf])) return { encoding: 'utf-8', bom: 3 };
  if (startsWith(head, [0xff, 0xfe])) return { encoding: 'utf-16le', bom: 2 };
  if (startsWith(head, [0xfe, 0xff])) return { encoding: 'utf-16be', bom: 2 };
  if (head.length >= 4) {
    const [a, b, c, d] = head;
    if (a !== 0 && b === 0 && c !== 0 && d === 0) return { encoding: 'utf-16le', bom: 0 };
    if (a === 0 && b !== 0 && c === 0 && d !== 0) return { encoding: 'utf-16be', bom: 0 };
  }
  return { encoding: 'utf-8', bom: 0 };
}

/** UTF-8 bytes of the input, whatever its encoding, without its byte order mark. */
class ToUtf8 extends Transform {
  private head: Buffer | undefined = Buffer.alloc(0);
  private decoder: TextDecoder | undefined;

  constructor(private readonly name: string) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    try {
      done(null, this.utf8Of(chunk));
    } catch (err) {
      done(err as Error);
    }
  }

  /** What a chunk becomes: nothing while the first bytes are gathered, then UTF-8. */
  private utf8Of(chunk: Buffer): Buffer | undefined {
    if (!this.head) return this.convert(chunk);
    this.head = Buffer.concat([this.head, chunk]);
    if (this.head.length < HEAD) return undefined;
    const first = this.start(this.head);
    this.head = undefined;
    return this.convert(first);
  }

  override _flush(done: TransformCallback): void {
    try {
      let rest = this.head ? this.convert(this.start(this.head)) : Buffer.alloc(0);
      if (this.decoder) rest = Buffer.concat([rest, Buffer.from(this.decoder.decode())]);
      done(null, rest.length > 0 ? rest : undefined);
    } catch (err) {
      done(err as Error);
    }
  }

  /** Decides the encoding from the first bytes; what follows the BOM. */
  private start(head: Buffer): Buffer {
    const found = sniff(head);
    if ('refused' in found) {
      throw new InvalidValueError(
        `${this.name} is ${found.refused}: plat reads text, UTF-8 or UTF-16 (${found.instead})`,
      );
    }
    // `fatal: false`: a malformed sequence reads as U+FFFD, as Node.js reads malformed UTF-8.
    if (found.encoding !== 'utf-8') this.decoder = new TextDecoder(found.encoding);
    return head.subarray(found.bom);
  }

  private convert(chunk: Buffer): Buffer {
    return this.decoder ? Buffer.from(this.decoder.decode(chunk, { stream: true })) : chunk;
  }
}

/**
 * The input as UTF-8 (see `sniff`); `name` names it in the error for an input that is no text (exit 7). Destroying
 * the result destroys the input, and the input's errors reach the result.
 */
export function toUtf8(input: Readable, name: string): Readable {
  return pipeline(input, new ToUtf8(name), () => {});
}
