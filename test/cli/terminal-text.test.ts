import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../helpers/cli.js';

/**
 * What others wrote reaches a terminal inert (docs/cli.md, "Output"): a name holding an escape sequence (a colour, a
 * window title set with OSC) or a bidi override is shown with those characters escaped in tables and in messages, so
 * that nothing runs on the admin's terminal; a pipe and --json still get the data as it is.
 */

const EVIL = 'Evil\u001b[31mRed\u001b]0;pwned\u0007\u202eTxt';
const SHOWN = 'Evil\\u001b[31mRed\\u001b]0;pwned\\u0007\\u202eTxt';

let w: CliWorld;
beforeEach(async () => {
  w = cliWorld();
  expect((await w.runCli(['teams', 'create', EVIL])).code).toBe(0);
});
afterEach(() => w.cleanup());

/** Whether text holds a character a terminal acts on: BEL, ESC, a bidi override. */
const live = (text: string) => [...text].some((c) => '\u0007\u001b\u202e'.includes(c));

describe('text others wrote, on a terminal', () => {
  it('is escaped in a table and a record', async () => {
    const tty = { tty: true, env: { NO_COLOR: '1' } };
    const list = await w.runCli(['teams', 'list'], tty);
    expect(live(list.stdout)).toBe(false);
    expect(list.stdout).toContain(SHOWN);
    const one = await w.runCli(['teams', 'get', 'team_0001'], tty);
    expect(live(one.stdout)).toBe(false);
    expect(one.stdout).toContain(SHOWN);
  });

  it('is escaped in an error message that quotes it (the API answer), never in --json', async () => {
    const r = await w.runCli(['teams', 'create', EVIL]);
    expect(r.code).toBe(6);
    expect(live(r.stderr)).toBe(false);
    expect(r.stderr).toContain(SHOWN);
    const json = await w.runCli(['teams', 'create', EVIL, '--json']);
    expect(JSON.parse(json.stderr).error.message).toContain(EVIL);
  });

  it('is kept as it is on a pipe and in JSON: the data', async () => {
    expect((await w.runCli(['teams', 'list'])).stdout).toContain(EVIL);
    expect(JSON.parse((await w.runCli(['teams', 'list', '--json'])).stdout)[0].name).toBe(EVIL);
  });
});
