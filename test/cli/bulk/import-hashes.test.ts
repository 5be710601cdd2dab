import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { hashProblem, withoutHashes } from '../../../src/cli/bulk/hashes.js';
import { csvRows } from '../../../src/cli/bulk/import-csv.js';
import { jsonLinesRows } from '../../../src/cli/bulk/import-json.js';
import { layoutOf } from '../../../src/cli/bulk/import-layout.js';
import type { Halt, Row } from '../../../src/cli/bulk/import-rows.js';

// plat's own files with password hashes (docs/migrate.md, "Any other system"), what tells an export's layout, and the
// care that keeps hashes out of messages.

const BCRYPT = '$2b$10$tFHKYyY4GZJl62GS7B9KSuQQUYbgbcW2B/K4wIIQnJgWNgjxdDRy6';

async function rows(reader: typeof csvRows, text: string): Promise<Row[]> {
  const out: Row[] = [];
  const halt: Halt = {};
  for await (const row of reader(() => Readable.from([Buffer.from(text)]), halt)) out.push(row);
  return out;
}

const show = (r: Row) =>
  'item' in r ? `${r.line} ${JSON.stringify(r.item)}` : `${r.line} ${r.email ?? '-'} ✗ ${r.error.message}`;

describe("plat's own files with a passwordHash", () => {
  it('take a hash string the platform verifies, in a CSV column or a JSON field; refuse anything else', async () => {
    const csv =
      'email,name,passwordHash\n' +
      `ada@example.com,Ada,${BCRYPT}\n` +
      'bob@example.com,Bob,\n' +
      'cy@example.com,Cy,correct horse battery staple\n' +
      'dee@example.com,Dee,hunter2hunter2\n';
    expect((await rows(csvRows, csv)).map(show)).toEqual([
      `2 {"email":"ada@example.com","name":"Ada","passwordHash":"${BCRYPT}"}`,
      '3 {"email":"bob@example.com","name":"Bob"}',
      '4 cy@example.com ✗ passwordHash: a hash has no spaces, line breaks or control characters',
      '5 dee@example.com ✗ passwordHash: not a hash plat verifies (bcrypt $2a$, $2b$ or $2y$; PHC $argon2id$, ' +
        '$argon2i$, $scrypt$, $pbkdf2-sha256$ or $pbkdf2-sha512$; Django pbkdf2_sha256$; sha512-crypt $6$)',
    ]);
    const lines =
      `${JSON.stringify({ email: 'ada@example.com', passwordHash: 'pbkdf2_sha256$870000$salt$aGFzaA==' })}\n` +
      `${JSON.stringify({ email: 'bob@example.com', passwordHash: { algorithm: 'firebase-scrypt', hash: 'aA==', salt: '' } })}\n`;
    expect((await rows(jsonLinesRows, lines)).map(show)).toEqual([
      '1 {"email":"ada@example.com","passwordHash":"pbkdf2_sha256$870000$salt$aGFzaA=="}',
      `2 bob@example.com ✗ passwordHash: expected a hash string (bcrypt $2a$, $2b$ or $2y$; PHC $argon2id$, ` +
        '$argon2i$, $scrypt$, $pbkdf2-sha256$ or $pbkdf2-sha512$; Django pbkdf2_sha256$; sha512-crypt $6$); read ' +
        "Firebase's exports with --from firebase",
    ]);
  });

  it('a line that does not parse fails without any of its text (which may hold a hash)', async () => {
    // V8 quotes the text around the error, cut with `...` after, before or on both sides: `Unexpected token 'x',
    // ..."DdRy6","k": x, "name":"... is not valid JSON`. The message keeps none of it, nor a token of the hash's.
    const name = 'Ada Lovelace, Countess of Lovelace, who wrote the first program';
    const lines = [
      `{"email": "ada@example.com", "passwordHash": "${BCRYPT}","k": x, "name": "${name}"}`,
      `{"email": "bob@example.com", "passwordHash": "${BCRYPT}", "x": y}`,
      `{"passwordHash": ${BCRYPT}, "email": "cy@example.com", "name": "${name}"}`,
      `{"a": "${BCRYPT}"}} ${BCRYPT}`,
      '{"a": y}',
    ];
    const failed = await rows(jsonLinesRows, `${lines.join('\n')}\n`);
    expect(failed.map(show)).toEqual([
      '1 - ✗ not JSON: Unexpected token',
      '2 - ✗ not JSON: Unexpected token',
      '3 - ✗ not JSON: Unexpected token',
      '4 - ✗ not JSON: Unexpected non-whitespace character after JSON at position 69',
      '5 - ✗ not JSON: Unexpected token',
    ]);
    const pieces = Array.from({ length: BCRYPT.length - 2 }, (_, i) => BCRYPT.slice(i, i + 3));
    for (const row of failed) for (const piece of pieces) expect(show(row)).not.toContain(piece);
    const [close] = await rows(jsonLinesRows, '{"a": 1,}\n');
    expect(show(close as Row)).toBe('1 - ✗ not JSON: Expected double-quoted property name in JSON at position 8');
    const [brace] = await rows(jsonLinesRows, '{"a": ,}\n');
    expect(show(brace as Row)).toBe("1 - ✗ not JSON: Unexpected token ','");
    expect(hashProblem(BCRYPT)).toBeUndefined();
  });

  it("no message says an item's hash, or its Firebase hash and salt", () => {
    const message = `passwordHash: ${BCRYPT} is too costly; ${BCRYPT}`;
    expect(withoutHashes(message, { email: 'a@example.com', passwordHash: BCRYPT })).toBe(
      'passwordHash: [hash] is too costly; [hash]',
    );
    const firebase = { algorithm: 'firebase-scrypt' as const, hash: 'bFNyZlYxNWNweDk1', salt: 'NDJ4RUMraXhm' };
    expect(withoutHashes('bad bFNyZlYxNWNweDk1 with NDJ4RUMraXhm', { email: 'a@b.c', passwordHash: firebase })).toBe(
      'bad [hash] with [hash]',
    );
  });
});

describe('the layout of an export, by its content', () => {
  it.each([
    ['[{"email": "a@example.com"}]', 'users', 'array'],
    ['  \n[\n', undefined, 'array'],
    ['{"email": "a@example.com"}\n', 'users', 'lines'],
    ['{"users": [{"email": "a@example.com"}]}\n', 'users', 'member'],
    ['{"users": [\n', 'users', 'member'],
    ['{\n', 'Users', 'member'],
    ['{"users": [1]}\n', undefined, 'lines'],
    ['email,name\n', 'users', 'csv'],
    ['\uFEFFid,first_name\n', undefined, 'csv'],
  ])('%j (member %s) is %s', (start, member, layout) => {
    expect(layoutOf(start, member)).toBe(layout);
  });
});
