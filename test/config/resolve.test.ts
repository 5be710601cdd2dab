import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/config.js';
import { UsageError } from '../../src/config/errors.js';
import { normalizeBaseUrl, type ResolveInput, resolveSettings } from '../../src/config/resolve.js';

const DATA = '/data/plat';
const config: Config = {
  currentProfile: 'prod',
  profiles: {
    prod: { baseUrl: 'https://prod.example.com/v2', sandboxBaseUrl: 'https://sandbox.example.com/v2', org: 'org_prod' },
    staging: { baseUrl: 'https://staging.example.com/v2/' },
    dev: { db: '/srv/plat/dev.db', org: 'org_dev' },
  },
};
const resolve = (input: Partial<ResolveInput>) =>
  resolveSettings({ flags: {}, env: {}, config: { profiles: {} }, dataDir: DATA, ...input });

describe('resolveSettings', () => {
  it('with nothing configured, is the embedded profile local on <dataDir>/local.db', () => {
    expect(resolve({})).toEqual({
      profile: 'local',
      kind: 'embedded',
      db: '/data/plat/local.db',
      org: undefined,
      sandbox: false,
      account: 'local',
      orgSlot: 'org',
      why: {
        profile: 'default (no configuration)',
        endpoint: 'default (no configuration)',
        org: "none (the credential's own organization)",
      },
    });
  });

  it('uses a second database for the embedded sandbox', () => {
    expect(resolve({ flags: { sandbox: true } })).toMatchObject({ db: '/data/plat/local-sandbox.db', sandbox: true });
    expect(resolve({ flags: { sandbox: true, profile: 'dev' }, config })).toMatchObject({
      db: '/srv/plat/dev-sandbox.db',
    });
  });

  it("gives the sandbox its own credential and organization: never the live profile's", () => {
    const profiles = {
      local: { org: 'org_live' },
      dev: { db: '/srv/plat/dev.db', org: 'org_dev', sandboxOrg: 'org_sbx' },
    };
    expect(resolve({ flags: { sandbox: true }, config: { profiles } })).toMatchObject({
      db: '/data/plat/local-sandbox.db',
      account: 'local:sandbox',
      orgSlot: 'sandboxOrg',
      org: undefined,
      why: { org: "none (the credential's own organization)" },
    });
    expect(resolve({ flags: { sandbox: true, profile: 'dev' }, config: { profiles } })).toMatchObject({
      org: 'org_sbx',
      why: { org: 'from profile "dev" (its sandbox)' },
    });
    expect(resolve({ flags: { sandbox: true }, config })).toMatchObject({
      kind: 'remote',
      baseUrl: 'https://sandbox.example.com/v2',
      account: 'prod:sandbox',
      org: undefined,
    });
  });

  it("gives a --db other than the profile's own a credential of its own, and none of the profile's organization", () => {
    const profiles = { local: { org: 'org_live' } };
    expect(resolve({ flags: { db: 'other.db' }, config: { profiles }, cwd: '/home/ada' })).toMatchObject({
      kind: 'embedded',
      db: '/home/ada/other.db',
      account: 'local@/home/ada/other.db',
      orgSlot: undefined,
      org: undefined,
      why: { endpoint: 'embedded, from --db' },
    });
    expect(resolve({ flags: { db: '/x/other.db', sandbox: true }, config: { profiles } })).toMatchObject({
      db: '/x/other-sandbox.db',
      account: 'local@/x/other.db:sandbox',
      orgSlot: undefined,
    });
    expect(resolve({ flags: { db: '/x/other.db', org: 'org_given' }, config: { profiles } })).toMatchObject({
      org: 'org_given',
    });
    // A relative data directory or profile database is the profile's own, with or without --db naming it.
    expect(resolve({ dataDir: 'data', config: { profiles }, cwd: '/home/ada' })).toMatchObject({
      db: 'data/local.db',
      account: 'local',
      org: 'org_live',
    });
    const relative = { profiles: { local: { db: './dev.db', org: 'org_dev' } } };
    expect(resolve({ config: relative, cwd: '/home/ada' })).toMatchObject({ account: 'local', org: 'org_dev' });
    expect(resolve({ flags: { db: '/home/ada/dev.db' }, config: relative, cwd: '/home/ada' })).toMatchObject({
      account: 'local',
      org: 'org_dev',
    });
    // The profile's own file named with --db is the profile's own.
    expect(resolve({ flags: { db: '/data/plat/local.db' }, config: { profiles } })).toMatchObject({
      account: 'local',
      orgSlot: 'org',
      org: 'org_live',
      why: { endpoint: 'embedded, from --db (profile "local"\'s own)' },
    });
  });

  // Each row: what is set, and what must win. Flags > environment > profile, for each setting separately.
  const matrix: [string, Partial<ResolveInput>, Record<string, unknown>][] = [
    ['current profile', { config }, { profile: 'prod', baseUrl: 'https://prod.example.com/v2', org: 'org_prod' }],
    ['PLAT_PROFILE over current', { config, env: { PLAT_PROFILE: 'staging' } }, { profile: 'staging' }],
    [
      '--profile over PLAT_PROFILE',
      { config, env: { PLAT_PROFILE: 'staging' }, flags: { profile: 'dev' } },
      {
        profile: 'dev',
        kind: 'embedded',
        db: '/srv/plat/dev.db',
        why: expect.objectContaining({ profile: 'from --profile' }),
      },
    ],
    [
      'PLAT_BASE_URL over the profile URL',
      { config, env: { PLAT_BASE_URL: 'https://env.example.com/v2' } },
      {
        kind: 'remote',
        baseUrl: 'https://env.example.com/v2',
        why: expect.objectContaining({ endpoint: 'from PLAT_BASE_URL' }),
      },
    ],
    [
      '--base-url over PLAT_BASE_URL',
      { config, env: { PLAT_BASE_URL: 'https://env.example.com/v2' }, flags: { baseUrl: 'http://127.0.0.1:8080' } },
      { baseUrl: 'http://127.0.0.1:8080/v2', why: expect.objectContaining({ endpoint: 'from --base-url' }) },
    ],
    [
      'PLAT_BASE_URL turns the default profile remote',
      { env: { PLAT_BASE_URL: 'https://ci.example.com/v2' } },
      { profile: 'local', kind: 'remote', baseUrl: 'https://ci.example.com/v2' },
    ],
    [
      "PLAT_BASE_URL naming another instance: none of the profile's organization (the CI recipe on a used machine)",
      {
        config: { currentProfile: 'local', profiles: { local: { org: 'org_local' } } },
        env: { PLAT_BASE_URL: 'https://ci.example.com' },
      },
      {
        kind: 'remote',
        org: undefined,
        orgSlot: undefined,
        why: expect.objectContaining({ org: expect.stringMatching(/^none/) }),
      },
    ],
    [
      "--base-url naming another instance than the remote profile's: none of its organization",
      { config, flags: { baseUrl: 'https://elsewhere.example.com/v2' } },
      { org: undefined, orgSlot: undefined },
    ],
    [
      "--base-url naming the profile's own URL, written otherwise: its organization applies",
      { config, flags: { baseUrl: 'https://prod.example.com/v2/' } },
      { org: 'org_prod', orgSlot: 'org' },
    ],
    [
      'PLAT_ORG applies on another instance',
      { config, env: { PLAT_BASE_URL: 'https://ci.example.com', PLAT_ORG: 'org_ci' } },
      { org: 'org_ci', why: expect.objectContaining({ org: 'from PLAT_ORG' }) },
    ],
    [
      'PLAT_ORG over the profile org',
      { config, env: { PLAT_ORG: 'org_env' } },
      { org: 'org_env', why: expect.objectContaining({ org: 'from PLAT_ORG' }) },
    ],
    [
      '--org over PLAT_ORG',
      { config, env: { PLAT_ORG: 'org_env' }, flags: { org: 'org_flag' } },
      { org: 'org_flag', why: expect.objectContaining({ org: 'from --org' }) },
    ],
    [
      'the profile org when nothing else says',
      { config, flags: { profile: 'dev' } },
      { org: 'org_dev', why: expect.objectContaining({ org: 'from profile "dev"' }) },
    ],
    [
      '--db over the profile database',
      { config, flags: { profile: 'dev', db: '/tmp/other.db' } },
      { db: '/tmp/other.db', why: expect.objectContaining({ endpoint: 'embedded, from --db' }) },
    ],
    [
      '--db over PLAT_BASE_URL (a flag wins over the environment)',
      { env: { PLAT_BASE_URL: 'http://127.0.0.1:59999' }, flags: { db: '/tmp/x.db' } },
      {
        profile: 'local',
        kind: 'embedded',
        db: '/tmp/x.db',
        why: expect.objectContaining({ endpoint: 'embedded, from --db' }),
      },
    ],
    [
      '--db over PLAT_BASE_URL on an embedded profile',
      { config, env: { PLAT_BASE_URL: 'https://x.example/v2' }, flags: { profile: 'dev', db: '/tmp/x.db' } },
      { kind: 'embedded', db: '/tmp/x.db' },
    ],
    [
      '--sandbox switches a remote profile to its sandbox URL',
      { config, flags: { sandbox: true } },
      { baseUrl: 'https://sandbox.example.com/v2', sandbox: true },
    ],
    [
      'a trailing slash is dropped',
      { config, flags: { profile: 'staging' } },
      { baseUrl: 'https://staging.example.com/v2' },
    ],
  ];
  it.each(matrix)('%s', (_name, input, expected) => {
    expect(resolve(input)).toMatchObject(expected);
  });

  it.each<[string, Partial<ResolveInput>, string]>([
    [
      '--db with a remote profile',
      { config, flags: { db: '/tmp/x.db' } },
      '--db applies to the embedded platform only, but the endpoint is remote (from profile "prod")',
    ],
    [
      '--db with --base-url',
      { flags: { db: '/tmp/x.db', baseUrl: 'http://127.0.0.1:8080' } },
      '--db applies to the embedded platform only, but the endpoint is remote (from --base-url)',
    ],
    [
      '--db with PLAT_BASE_URL and a remote profile (the profile URL still applies)',
      { config, env: { PLAT_BASE_URL: 'https://x.example/v2' }, flags: { db: '/tmp/x.db' } },
      '--db applies to the embedded platform only, but the endpoint is remote (from profile "prod")',
    ],
    [
      'an unknown profile',
      { config, flags: { profile: 'nope' } },
      'unknown profile "nope" (from --profile); known profiles: prod, staging, dev',
    ],
    [
      'an unknown PLAT_PROFILE',
      { env: { PLAT_PROFILE: 'ci' } },
      'unknown profile "ci" (from PLAT_PROFILE); known profiles: none',
    ],
    [
      '--sandbox on a profile without a sandbox URL',
      { config, flags: { profile: 'staging', sandbox: true } },
      'profile "staging" has no sandbox URL',
    ],
    [
      '--sandbox with PLAT_BASE_URL',
      { env: { PLAT_BASE_URL: 'https://x.example/v2' }, flags: { sandbox: true } },
      '--sandbox cannot',
    ],
    ['a base URL that is not http(s)', { flags: { baseUrl: 'ftp://x.example' } }, 'only http and https are supported'],
  ])('refuses %s with a UsageError', (_name, input, message) => {
    let thrown: unknown;
    try {
      resolve(input);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as Error).message).toContain(message);
  });
});

describe('normalizeBaseUrl', () => {
  it('adds /v2 to a bare origin and keeps an explicit path', () => {
    expect(normalizeBaseUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080/v2');
    expect(normalizeBaseUrl('https://api.example.com/v2/')).toBe('https://api.example.com/v2');
    expect(normalizeBaseUrl('https://example.com/platform/v2')).toBe('https://example.com/platform/v2');
  });

  it('refuses a URL carrying credentials without repeating them', () => {
    expect(() => normalizeBaseUrl('https://user:hunter2@api.example.com/v2')).toThrow(UsageError);
    try {
      normalizeBaseUrl('https://user:hunter2@api.example.com/v2');
    } catch (err) {
      expect((err as Error).message).not.toContain('hunter2');
    }
  });
});
