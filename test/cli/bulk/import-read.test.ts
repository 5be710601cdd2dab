import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { csvRows } from '../../../src/cli/bulk/import-csv.js';
import { toUtf8 } from '../../../src/cli/bulk/import-decode.js';
import { jsonArrayRows, jsonLinesRows } from '../../../src/cli/bulk/import-json.js';
import type { ImportFormat } from '../../../src/cli/bulk/import-options.js';
import type { Halt, Row } from '../../../src/cli/bulk/import-rows.js';
import { formatOf } from '../../../src/cli/bulk/import-source.js';

type Reader = (open: () => Readable, halt: Halt) => AsyncGenerator<Row>;

/** Every row a reader gives for `text`, fed in chunks of `size` characters (to cross every boundary), and its halt. */
async function read(reader: Reader, text: string | Buffer, size = 0): Promise<{ rows: Row[]; halt: Halt['at'] }> {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const chunks =
    size === 0
      ? [bytes]
      : Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
  const halt: Halt = {};
  const rows: Row[] = [];
  for await (const row of reader(() => Readable.from(chunks), halt)) rows.push(row);
  return { rows, halt: halt.at };
}

/** A row as a short line: `line email → item` or `line email ✗ code: message`. */
const show = (r: Row) =>
  'item' in r
    ? `${r.line} ${JSON.stringify(r.item)}`
    : `${r.line} ${r.email ?? '-'} ✗ ${r.error.code}: ${r.error.message}`;

async function shown(reader: Reader, text: string | Buffer): Promise<string[]> {
  const whole = await read(reader, text);
  // The same rows whatever the chunks: one byte at a time splits characters, CRLFs, quotes and escapes.
  for (const size of [1, 2, 7]) expect((await read(reader, text, size)).rows.map(show)).toEqual(whole.rows.map(show));
  return whole.rows.map(show);
}

describe('CSV rows', () => {
  it('reads RFC 4180: quotes, commas, line breaks and doubled quotes in fields, a BOM, CRLF; lines are physical', async () => {
    const csv =
      '\uFEFFemail,name,role,teams,metadata.plan,metadata.seats\r\n' +
      'ada@example.com,"Lovelace, Ada",admin,Engineering;Research,gold,3\r\n' +
      '\r\n' +
      'bob@example.com,"Bob ""the builder""\r\nBuilder",,,,\r\n' +
      "cy@example.com,Cy,,,'42,true\r\n";
    expect(await shown(csvRows, csv)).toEqual([
      '2 {"email":"ada@example.com","name":"Lovelace, Ada","role":"admin","teams":["Engineering","Research"],"metadata":{"plan":"gold","seats":3}}',
      '4 {"email":"bob@example.com","name":"Bob \\"the builder\\"\\r\\nBuilder"}',
      '6 {"email":"cy@example.com","name":"Cy","metadata":{"plan":"42","seats":true}}',
    ]);
  });

  it('restores what the export neutralised, and ignores its read-only columns', async () => {
    const csv =
      'id,email,name,role,status,teams,createdAt,lastLoginAt,metadata.note\n' +
      "user_1,ada@example.com,'=SUM(A1),member,active,'+ops;dev,2026-01-01T00:00:00.000Z,,'-1\n";
    expect(await shown(csvRows, csv)).toEqual([
      '2 {"email":"ada@example.com","name":"=SUM(A1)","role":"member","teams":["+ops","dev"],"metadata":{"note":"-1"}}',
    ]);
  });

  it('fails rows it can tell are invalid, with their line, and reads on', async () => {
    const csv =
      'email,role,name\n' +
      ',admin,No Email\n' +
      'ada@example.com,emperor,Ada\n' +
      'bob@example.com,member\n' +
      'cy@ex"ample.com,member,Cy\n' +
      'not-an-address,member,X\n' +
      'dee@example.com,,"Dee\nDee"\n';
    expect(await shown(csvRows, csv)).toEqual([
      '2 - ✗ validation_error: email: missing',
      expect.stringMatching(/^3 ada@example.com ✗ validation_error: role: Invalid option: expected one of /),
      '4 bob@example.com ✗ invalid_request: 2 fields where the header has 3',
      '5 - ✗ invalid_request: malformed CSV: a quote inside an unquoted field (quote the whole field and double the quote: "a""b")',
      '6 not-an-address ✗ validation_error: email: must be an e-mail address',
      '7 {"email":"dee@example.com","name":"Dee\\nDee"}',
    ]);
  });

  it('counts lines across line breaks in quoted fields, whatever their kind, also around a malformed record', async () => {
    const csv =
      'email,name\r\n"a@example.com","A\r\nB\rC\nD"\r\nb@ex"ample.com,B\r\n\r\nc@example.com,C\rd@example.com,D';
    expect(await shown(csvRows, csv)).toEqual([
      '2 {"email":"a@example.com","name":"A\\r\\nB\\rC\\nD"}',
      '6 - ✗ invalid_request: malformed CSV: a quote inside an unquoted field (quote the whole field and double the quote: "a""b")',
      '8 {"email":"c@example.com","name":"C"}',
      '9 {"email":"d@example.com","name":"D"}',
    ]);
  });

  it('stops where records can no longer be told apart, keeping the rows before', async () => {
    const closing = await read(csvRows, 'email\na@example.com\n"b@example.com"x\nc@example.com\n');
    expect(closing.rows.map(show)).toEqual([
      '2 {"email":"a@example.com"}',
      '3 - ✗ invalid_request: malformed CSV: a quoted field goes on after its closing quote',
    ]);
    expect(closing.halt).toEqual({ line: 3, message: 'a quoted field goes on after its closing quote' });
    const open = await read(csvRows, 'email,name\na@example.com,A\nb@example.com,"B\nc@example.com,C\n');
    expect(open.rows.map(show)).toEqual([
      '2 {"email":"a@example.com","name":"A"}',
      '3 - ✗ invalid_request: malformed CSV: a quote opened on this line is never closed',
    ]);
    expect(open.halt?.line).toBe(3);
  });

  it('refuses a header with an unknown or repeated column, or without email, before any row', async () => {
    const refused = async (csv: string) =>
      read(csvRows, csv).then(
        () => 'read',
        (e: Error) => `${e.name}: ${e.message}`,
      );
    expect(await refused('email,nmae\na@example.com,A\n')).toBe(
      'InvalidValueError: line 1: unknown column "nmae": expected email, name, role, teams and metadata.KEY columns ' +
        "(the export's id, status, emailVerified, createdAt, updatedAt, lastLoginAt, avatarUrl are ignored); nothing was imported",
    );
    expect(await refused('email,name,name\n')).toBe(
      'InvalidValueError: line 1: the column "name" appears twice; nothing was imported',
    );
    expect(await refused('name\nAda\n')).toBe(
      'InvalidValueError: line 1: no email column: the header must name one; nothing was imported',
    );
    expect(await refused('')).toBe(
      'InvalidValueError: the file is empty: expected a header line naming an email column',
    );
  });
});

describe('JSON lines rows', () => {
  it('reads one object per line, skips blank lines, fails a line that does not parse or has an unknown key', async () => {
    const jsonl = [
      '\uFEFF{"email":"ada@example.com","name":null,"teams":["Eng"],"metadata":{"gone":null,"n":1}}\r',
      '',
      '{"email":"bob@example.com",',
      '{"email":"cy@example.com","nickname":"C","id":"user_1","status":"active"}',
      '[1]',
      '{"email":"dee@example.com"}',
    ].join('\n');
    expect(await shown(jsonLinesRows, jsonl)).toEqual([
      '1 {"email":"ada@example.com","teams":["Eng"],"metadata":{"gone":null,"n":1}}',
      expect.stringMatching(/^3 - ✗ invalid_request: not JSON: /),
      '4 cy@example.com ✗ validation_error: unknown key "nickname"',
      '5 - ✗ validation_error: expected an object such as {"email": "ada@example.com"}',
      '6 {"email":"dee@example.com"}',
    ]);
  });
});

describe('JSON array rows', () => {
  it('gives each element the line it starts on, and fails a malformed element alone', async () => {
    // Element lines: 2, 3 (over 4 lines, with a quote and a brace in a string), 7 (malformed), 8 (empty), 9 (two).
    const json = `\uFEFF[
  {"email": "ada@example.com", "name": "Ada [the first]"},
  {
    "email": "bob@example.com",
    "name": "B\\"o}b"
  },
  {"email": "cy@example.com" "name": "Cy"},
  ,
  {"email": "dee@example.com", "metadata": {"tags": [1, {"x": "]"}]}}, {"email": "eve@example.com"}
]
`;
    expect(await shown(jsonArrayRows, json)).toEqual([
      '2 {"email":"ada@example.com","name":"Ada [the first]"}',
      '3 {"email":"bob@example.com","name":"B\\"o}b"}',
      expect.stringMatching(/^7 - ✗ invalid_request: not JSON: /),
      '8 - ✗ invalid_request: not JSON: an empty element',
      expect.stringMatching(/^9 dee@example.com ✗ validation_error: metadata.tags: /),
      '9 {"email":"eve@example.com"}',
    ]);
  });

  it('reads [] as no rows, and fails a trailing comma', async () => {
    expect(await shown(jsonArrayRows, ' [ ] \n')).toEqual([]);
    expect(await shown(jsonArrayRows, '[{"email":"a@example.com"},\n]')).toEqual([
      '1 {"email":"a@example.com"}',
      '2 - ✗ invalid_request: not JSON: a comma before the closing ]',
    ]);
  });

  it('stops when the input is not an array, goes on after it, or never closes it', async () => {
    expect(await read(jsonArrayRows, '{"email":"a@example.com"}')).toMatchObject({
      rows: [{ line: 1 }],
      halt: { line: 1, message: 'not a JSON array: the file must start with [' },
    });
    expect((await read(jsonArrayRows, '[{"email":"a@example.com"}]\n[]')).halt).toEqual({
      line: 2,
      message: 'text after the end of the JSON array',
    });
    const open = await read(jsonArrayRows, '[{"email":"a@example.com"},\n{"email":"b@example.com"}\n');
    expect(open.rows.map(show)).toEqual([
      '1 {"email":"a@example.com"}',
      '2 - ✗ invalid_request: the JSON array is never closed',
    ]);
    expect((await read(jsonArrayRows, '')).halt?.message).toBe('the file is empty: expected a JSON array');
  });
});

/** UTF-16 of `text`, little- or big-endian, with a byte order mark or not. */
function utf16(text: string, order: 'le' | 'be', bom = true): Buffer {
  const le = Buffer.from(`${bom ? '\uFEFF' : ''}${text}`, 'utf16le');
  return order === 'le' ? le : le.swap16();
}

/** A reader of what `toUtf8` makes of the input, as `plat users import` reads it. */
const decoding =
  (reader: Reader): Reader =>
  (open, halt) =>
    reader(() => toUtf8(open(), 'people.txt'), halt);

describe('encodings and delimiters', () => {
  // Excel's "Unicode text": UTF-16LE with a BOM, tab-separated, CRLF; a field with a tab or line break is quoted.
  const excel =
    'email\tname\tteams\r\n' +
    'zoe@example.com\t"Zoë\t😀\r\nZ"\tR&D;Ops\r\n' +
    'amelie@example.com\tAmélie, « Mimi »\t\r\n';
  const rows = [
    '2 {"email":"zoe@example.com","name":"Zoë\\t😀\\r\\nZ","teams":["R&D","Ops"]}',
    '4 {"email":"amelie@example.com","name":"Amélie, « Mimi »"}',
  ];

  it('reads UTF-16 LE and BE, with a BOM or (told by its NULs) without, split anywhere, and tab-separated', async () => {
    for (const input of [
      utf16(excel, 'le'),
      utf16(excel, 'be'),
      utf16(excel, 'le', false),
      utf16(excel, 'be', false),
    ]) {
      expect(await shown(decoding(csvRows), input)).toEqual(rows);
    }
    expect(await shown(decoding(csvRows), Buffer.from(`\uFEFF${excel}`))).toEqual(rows);
  });

  it('reads JSON and JSON lines in UTF-16 and with a UTF-8 BOM', async () => {
    const jsonl = '{"email":"zoe@example.com","name":"Zoë 😀"}\r\n{"email":"bob@example.com"}\r\n';
    const json = `[${jsonl.trim().split('\r\n').join(',\n')}]`;
    const expected = ['1 {"email":"zoe@example.com","name":"Zoë 😀"}', '2 {"email":"bob@example.com"}'];
    for (const encode of [
      (t: string) => utf16(t, 'le'),
      (t: string) => utf16(t, 'be'),
      (t: string) => Buffer.from(`\uFEFF${t}`),
    ]) {
      expect(await shown(decoding(jsonLinesRows), encode(jsonl))).toEqual(expected);
      expect(await shown(decoding(jsonArrayRows), encode(json))).toEqual(expected);
    }
  });

  it('splits on the delimiter of the header: a comma, else a tab, else a semicolon', async () => {
    expect(await shown(csvRows, 'email;name;teams\nada@example.com;"Ada; the first";"R&D;Ops"\n')).toEqual([
      '2 {"email":"ada@example.com","name":"Ada; the first","teams":["R&D","Ops"]}',
    ]);
    expect(await shown(csvRows, 'email,name\nada@example.com,Ada\tLovelace; the first\n')).toEqual([
      '2 {"email":"ada@example.com","name":"Ada\\tLovelace; the first"}',
    ]);
    expect(await shown(csvRows, 'email\nada@example.com\n')).toEqual(['2 {"email":"ada@example.com"}']);
    expect(await shown(csvRows, 'email')).toEqual([]);
  });

  it('refuses a workbook, UTF-32 or a gzip file as what it is', async () => {
    const refused = (bytes: number[]) =>
      read(decoding(csvRows), Buffer.from([...bytes, 0x14, 0x00, 0x06, 0x00])).then(
        () => 'read',
        (e: Error) => `${e.name}: ${e.message}`,
      );
    expect(await refused([0x50, 0x4b, 0x03, 0x04])).toBe(
      'InvalidValueError: people.txt is a zip archive (an Excel workbook, .xlsx?): plat reads text, UTF-8 or UTF-16 ' +
        '(in Excel, save as "CSV UTF-8" or "Unicode text")',
    );
    expect(await refused([0xff, 0xfe, 0x00, 0x00])).toMatch(
      /^InvalidValueError: people.txt is UTF-32 text: plat reads /,
    );
    expect(await refused([0x1f, 0x8b, 0x08, 0x00])).toBe(
      'InvalidValueError: people.txt is gzip-compressed: plat reads text, UTF-8 or UTF-16 (gunzip it first)',
    );
  });
});

describe('the format of a file', () => {
  it('is --format, else its extension, else CSV', () => {
    const cases: [string, ImportFormat | undefined, ImportFormat][] = [
      ['users.JSON', undefined, 'json'],
      ['users.jsonl', undefined, 'jsonl'],
      ['users.ndjson', undefined, 'jsonl'],
      ['users.csv', undefined, 'csv'],
      ['-', undefined, 'csv'],
      ['users.txt', 'jsonl', 'jsonl'],
    ];
    expect(cases.map(([file, given]) => formatOf(file, given))).toEqual(cases.map(([, , format]) => format));
  });
});
