import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  metadataCell,
  metadataValue,
  neutraliseText,
  restoreText,
  teamsCell,
  teamsOfCell,
} from '../../../src/cli/bulk/cells.js';

// Text that tends to start with what matters here: formula starts, apostrophes, digits, true/false.
const tricky = fc.oneof(
  fc.string(),
  fc
    .tuple(fc.constantFrom('=', '+', '-', '@', '\t', '\r', "'", "''", '1', '-1', 'true', 'false', '0.5'), fc.string())
    .map(([head, tail]) => head + tail),
);

describe('CSV cells', () => {
  it('never start with what a spreadsheet runs as a formula', () => {
    fc.assert(fc.property(tricky, (s) => !/^[=+\-@\t\r]/.test(neutraliseText(s))));
    expect(neutraliseText('=HYPERLINK("http://evil.test","x")')).toBe('\'=HYPERLINK("http://evil.test","x")');
    expect(neutraliseText('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(neutraliseText('Ada')).toBe('Ada');
  });

  it('give back exactly the text that was written', () => {
    fc.assert(fc.property(tricky, (s) => restoreText(neutraliseText(s)) === s));
  });

  it('leave hand-written text alone, and take an apostrophe before a formula start as a spreadsheet does', () => {
    expect(restoreText("'Quote")).toBe("'Quote");
    expect(restoreText("'=1+1")).toBe('=1+1');
    expect(restoreText('plain')).toBe('plain');
  });

  it('keep metadata values and their types through the round trip', () => {
    const value = fc.oneof(tricky, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.boolean());
    fc.assert(
      fc.property(value, (v) => {
        const back = metadataValue(metadataCell(v));
        return Object.is(v, -0) ? back === 0 : back === v;
      }),
    );
    expect(metadataCell(42)).toBe('42');
    expect(metadataCell('42')).toBe("'42");
    expect(metadataCell(true)).toBe('true');
    expect(metadataCell('+1 555 0100')).toBe("'+1 555 0100");
  });

  it('read hand-written metadata cells as numbers and booleans unless marked as text', () => {
    expect(metadataValue('42')).toBe(42);
    expect(metadataValue('-1.5e3')).toBe(-1500);
    expect(metadataValue('false')).toBe(false);
    expect(metadataValue("'42")).toBe('42');
    expect(metadataValue('007')).toBe('007');
    expect(metadataValue('Engineering')).toBe('Engineering');
  });

  it('keep team names through the teams cell, a ; or backslash in one included', () => {
    const name = fc
      .string({ unit: fc.constantFrom('a', 'b', ' ', ';', '\\', 'é') })
      .map((n) => n.trim())
      .filter((n) => n !== '');
    fc.assert(
      fc.property(fc.array(name), (names) => JSON.stringify(teamsOfCell(teamsCell(names))) === JSON.stringify(names)),
    );
    expect(teamsCell(['Engineering', 'R;D', 'a\\b'])).toBe('Engineering;R\\;D;a\\\\b');
    expect(teamsOfCell('Engineering; Research;;')).toEqual(['Engineering', 'Research']);
    expect(teamsOfCell('C:\\Teams;R\\;D')).toEqual(['C:\\Teams', 'R;D']);
  });
});
