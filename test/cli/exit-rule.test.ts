import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../helpers/cli.js';

/**
 * Exit 2 or 7 (docs/cli.md, "Exit codes"): 2 when the command line cannot be understood, 7 when a well-formed value is
 * refused — by the CLI or by the API alike; and a refused value is named as the command line gave it, not by the API's
 * field. Nothing is changed by any of them.
 */

let w: CliWorld;
beforeEach(async () => {
  w = cliWorld();
  expect((await w.runCli(['projects', 'create', 'Billing API'])).code).toBe(0);
});
afterEach(() => w.cleanup());

const SAML = ['sso', 'set', '--provider', 'okta', '--metadata-url', 'https://idp.acme.test/metadata'];

describe('exit 2: the command line cannot be understood', () => {
  it.each([
    [
      ['users', 'list', '--per-page', 'ten'],
      "option '--per-page <n>' argument 'ten' is invalid. expected a whole number.",
    ],
    [['api', 'POST', '/organizations', '--data', '{oops'], '--data is not valid JSON (at character 2)'],
    // Where, never what: the body may be a secret (JSON.parse's own message quotes it).
    [
      ['api', 'POST', '/organizations', '--data', 'password=hunter2'],
      /^--data is not valid JSON( \(at character 1\))?$/,
    ],
    [['envs', 'set', 'billing-api', 'staging', 'NOEQUALS'], 'expected KEY=VALUE, got "NOEQUALS"'],
    [[...SAML, '--protocol', 'saml', '--map', 'email'], 'expected field=attribute after --map, got "email"'],
    [[...SAML, '--protocol', 'saml'], 'give at least --map email=ATTRIBUTE'],
  ])('%j', async (argv, message) => {
    const r = await w.runCli(argv);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.replace(/^plat: |\n$/g, '')).toMatch(message);
  });
});

describe('exit 7: a well-formed value is refused, by the CLI or the API', () => {
  it.each([
    [
      ['users', 'list', '--per-page', '1000'],
      "option '--per-page <n>' argument '1000' is invalid. expected a whole number from 1 to 100.",
    ],
    [
      ['projects', 'list', '--page', '0'],
      /^option '--page <n>' argument '0' is invalid\. expected a whole number from 1 to/,
    ],
    [['users', 'list', '--status', 'bogus'], 'invalid --status "bogus": expected one of active, suspended, pending'],
    [[...SAML, '--protocol', 'foo'], 'invalid --protocol "foo": expected one of saml, oidc'],
    [
      [...SAML, '--protocol', 'saml', '--map', 'email=mail', '--domain', 'acme.test', '--domain', 'not a domain'],
      /^--domain "not a domain": must be a domain name \[request req_…\]$/,
    ],
    [['users', 'invite', 'ada'], /^e-mail "ada": .+ \[request req_…\]$/],
    // A value with `$` patterns is shown as typed (no replacement pattern expanded).
    [
      ['envs', 'create', 'billing-api', 'A$`X'],
      /^environment name "A\$`X": must be a lower-case slug .+ \[request req_…\]$/,
    ],
    [
      ['envs', 'create', 'billing-api', 'Pre View'],
      /^environment name "Pre View": must be a lower-case slug .+ \[request req_…\]$/,
    ],
    [
      ['keys', 'create', '--name', 'old', '--expires', '2020-01-01'],
      /^--expires: must be in the future \[request req_…\]$/,
    ],
    [['projects', 'update', 'billing-api', '--default-env', 'nowhere'], /^--default-env: .+ \[request req_…\]$/],
  ])('%j', async (argv, message) => {
    const before = (await w.runCli(['events', 'list', '--json'])).stdout;
    const r = await w.runCli(argv);
    expect(r.stderr.replace(/^plat: |\n$/g, '')).toMatch(message);
    expect(r).toMatchObject({ code: 7, stdout: '' });
    expect((await w.runCli(['events', 'list', '--json'])).stdout).toBe(before);
  });

  it('--json keeps the API field names the flags stand for', async () => {
    const r = await w.runCli([...SAML, '--protocol', 'saml', '--map', 'email=mail', '--domain', 'x y', '--json']);
    expect(r.code).toBe(7);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'validation_error',
      details: [{ field: 'domains.0', message: 'must be a domain name' }],
    });
  });
});
