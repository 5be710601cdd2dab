import type { Readable } from 'node:stream';
import { Envelope } from './import-envelope.js';
import { failedRow, type Halt, platRecords, type RecordReader, type Row } from './import-rows.js';

/** The longest element or line read: the API's body limit (a longer one could never be sent). */
export const MAX_ELEMENT_CHARS = 1024 * 1024;

/** JSON's punctuation: an unexpected token that is one of these is named (any other could be a character of a value). */
const PUNCTUATION = new Set(['{', '}', '[', ']', ',', ':', '"']);

/**
 * Why a JSON text does not parse, in V8's words but with none of the text: V8 quotes the text around the error after
 * its description (`Unexpected token 'x', ..."…" is not valid JSON`, cut with `...` on either side or both), and names
 * the token it did not expect — either could be part of a password hash, which no message shows. What is kept is the
 * description before the quote, naming the token only when it is JSON's punctuation; a description with a position
 * (`Expected ',' or '}' after property value in JSON at position 20`) has no text of the line.
 */
function whyNotJson(err: Error): string {
  const description = err.message.replace(/, (?:\.\.\.)?"[\s\S]*$/, '');
  const token = /^Unexpected token '([\s\S]+)'$/.exec(description);
  if (token) return PUNCTUATION.has(token[1] as string) ? description : 'Unexpected token';
  // Any other form that would still quote the text (a later V8's): none of it, only that it is not JSON.
  return description.includes('"') ? 'not valid JSON' : description;
}

/** A JSON text as a row, by `records`: what it parses to, or why it does not. */
function parsed(line: number, text: string, records: RecordReader): Row {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return failedRow(line, null, 'invalid_request', `not JSON: ${whyNotJson(err as Error)}`);
  }
  return records.json(line, value);
}

/** The input as text chunks, without a leading byte order mark. */
async function* text(input: Readable): AsyncGenerator<string> {
  input.setEncoding('utf8');
  let first = true;
  for await (const chunk of input as AsyncIterable<string>) {
    if (chunk === '') continue; // a character split between chunks comes whole in the next
    yield first && chunk.startsWith('\uFEFF') ? chunk.slice(1) : chunk;
    first = false;
  }
}

/** JSON lines: one object per line; blank lines are skipped (and counted); a line that does not parse fails alone. */
export async function* jsonLinesRows(
  open: () => Readable,
  halt: Halt,
  records: RecordReader = platRecords,
): AsyncGenerator<Row> {
  const input = open();
  let line = 0;
  let rest = '';
  const row = (raw: string): Row | undefined => {
    line++;
    const t = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    return t.trim() === '' ? undefined : parsed(line, t, records);
  };
  try {
    for await (const chunk of text(input)) {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() as string;
      for (const raw of lines) {
        const r = row(raw);
        if (r) yield r;
      }
      if (rest.length > MAX_ELEMENT_CHARS) {
        halt.at = { line: line + 1, message: `a line longer than ${MAX_ELEMENT_CHARS} characters` };
        yield failedRow(line + 1, null, 'invalid_request', halt.at.message);
        return;
      }
    }
    const r = row(rest);
    if (r) yield r;
  } finally {
    input.destroy();
  }
}

/**
 * A JSON array of objects, streamed: a scanner finds where each element starts and ends (tracking strings and
 * nesting, and lines), and each element is parsed on its own — so every row has the line its element starts on,
 * and an element that does not parse fails alone. Only what leaves the elements' bounds unknown (no `[` first, text
 * after the `]`, an array never closed, an element over the size limit) ends the rows, with `halt` set. With `member`,
 * the array is that member of an object around it (`{"users": [ … ]}`: import-envelope.ts reads the object).
 */
export async function* jsonArrayRows(
  open: () => Readable,
  halt: Halt,
  records: RecordReader = platRecords,
  member?: string,
): AsyncGenerator<Row> {
  const input = open();
  const envelope = member === undefined ? undefined : new Envelope(member);
  let line = 1;
  // `outside`: in the object around the array, before or after it.
  let state = (envelope ? 'outside' : 'before') as 'outside' | 'before' | 'between' | 'element' | 'after';
  const closed = envelope ? 'outside' : 'after';
  let afterComma = false; // in `between`: a `]` now would close `[…,]`
  let [depth, inString, escaped] = [0, false, false];
  let [element, elementLine] = ['', 0];
  const stop = (at: number, message: string): Row => {
    halt.at = { line: at, message };
    return failedRow(at, null, 'invalid_request', message);
  };
  try {
    for await (const chunk of text(input)) {
      let from = 0; // where the current element's text starts in this chunk
      for (let i = 0; i < chunk.length; i++) {
        const c = chunk[i] as string;
        if (state === 'element') {
          if (inString) {
            if (escaped) escaped = false;
            else if (c === '\\') escaped = true;
            else if (c === '"') inString = false;
          } else if (c === '"') inString = true;
          else if (c === '{' || c === '[') depth++;
          else if ((c === ',' || c === ']') && depth === 0) {
            const whole = element + chunk.slice(from, i);
            element = '';
            [state, afterComma] = [c === ',' ? 'between' : closed, true];
            if (c === ']') envelope?.arrayClosed();
            yield parsed(elementLine, whole, records);
          } else if (c === '}' || c === ']') depth = Math.max(0, depth - 1);
          if (c === '\n') line++;
          continue;
        }
        if (c === '\n') line++;
        if (state === 'outside') {
          const step = (envelope as Envelope).take(c);
          if (step === 'array') state = 'between';
          else if (typeof step === 'object') {
            yield stop(line, step.problem);
            return;
          }
          continue;
        }
        if (c === ' ' || c === '\t' || c === '\r' || c === '\n') continue;
        if (state === 'before') {
          if (c !== '[') {
            yield stop(line, 'not a JSON array: the file must start with [');
            return;
          }
          state = 'between';
        } else if (state === 'after') {
          yield stop(line, 'text after the end of the JSON array');
          return;
        } else if (c === ']') {
          if (afterComma) yield failedRow(line, null, 'invalid_request', 'not JSON: a comma before the closing ]');
          state = closed;
          envelope?.arrayClosed();
        } else if (c === ',') {
          yield failedRow(line, null, 'invalid_request', 'not JSON: an empty element');
          afterComma = true;
        } else {
          [state, elementLine, from, depth, inString, escaped] = ['element', line, i, 0, false, false];
          i--; // this character is the element's first: scan it as such
        }
      }
      if (state === 'element') {
        element += chunk.slice(from);
        if (element.length > MAX_ELEMENT_CHARS) {
          yield stop(
            elementLine,
            `an element longer than ${MAX_ELEMENT_CHARS} characters (is a bracket never closed?)`,
          );
          return;
        }
      }
    }
    if (state === 'before') yield stop(line, 'the file is empty: expected a JSON array');
    else if (state === 'outside' && !envelope?.complete) yield stop(line, (envelope as Envelope).endProblem);
    else if (state !== 'after' && state !== 'outside') {
      yield stop(state === 'element' ? elementLine : line, 'the JSON array is never closed');
    }
  } finally {
    input.destroy();
  }
}
