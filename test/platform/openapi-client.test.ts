import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveDevice, type SignInServer, signInServer } from '../helpers/sign-in.js';

// A client generated from `GET /v2/openapi.json` as a team integrating with the platform would make one
// (openapi-typescript for the types, openapi-fetch for the calls): it type-checks, including what it must refuse, and
// signs in (device flow, token, refresh, revoke) and calls operations against a real server.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = join(ROOT, 'test/fixtures/openapi-client');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

/** The fixture's `run` (test/fixtures/openapi-client/client.ts, which compiles only beside its generated types). */
type RunClient = (
  baseUrl: string,
  steps: { approve(url: string): Promise<void>; orgId: string; userId: string },
) => Promise<Record<string, any>>;

/** Type-checks a directory's files as a strict NodeNext project; tsc's output (none: it compiles). */
function typeCheck(dir: string): { status: number | null; output: string } {
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2023',
        lib: ['ES2023', 'DOM'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        verbatimModuleSyntax: true,
        noEmit: true,
        types: [],
      },
      include: ['*.ts'],
    }),
  );
  const run = spawnSync(process.execPath, [TSC, '-p', dir], { encoding: 'utf8', timeout: 120_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('a client generated from the OpenAPI document', () => {
  let s: SignInServer;
  let dir: string;

  beforeAll(async () => {
    s = await signInServer();
    const doc = (await (await fetch(`${s.url}/v2/openapi.json`)).json()) as OpenAPI3;
    // Inside the project, so that the generated client finds openapi-fetch as an installed package would.
    mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true });
    dir = mkdtempSync(join(ROOT, 'node_modules/.cache/plat-openapi-client-'));
    // openapi-typescript changes the document it is given.
    writeFileSync(join(dir, 'api.ts'), COMMENT_HEADER + astToString(await openapiTS(structuredClone(doc))));
    copyFileSync(join(FIXTURE, 'client.ts'), join(dir, 'client.ts'));
  }, 60_000);

  afterAll(async () => {
    await s?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('type-checks: every call typed, and what the description refuses does not compile', () => {
    const { status, output } = typeCheck(dir);
    expect(output).toBe('');
    expect(status).toBe(0);
  }, 120_000);

  it('fails to type-check a call the description refuses (the check can fail)', () => {
    const bad = mkdtempSync(join(ROOT, 'node_modules/.cache/plat-openapi-bad-'));
    try {
      copyFileSync(join(dir, 'api.ts'), join(bad, 'api.ts'));
      writeFileSync(
        join(bad, 'bad.ts'),
        [
          "import createClient from 'openapi-fetch';",
          "import type { paths } from './api.js';",
          "const client = createClient<paths>({ baseUrl: 'http://127.0.0.1' });",
          '// SAML without its metadata.',
          "await client.PUT('/organizations/{orgId}/sso', { params: { path: { orgId: 'o' } }, body: { protocol: 'saml', provider: 'okta', attributeMapping: { email: 'mail' } } });",
          '',
        ].join('\n'),
      );
      const { status, output } = typeCheck(bad);
      expect(status).not.toBe(0);
      expect(output).toMatch(/bad\.ts\(5,/);
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  }, 120_000);

  it('signs in (device flow, token, refresh, revoke) and calls operations with typed answers', async () => {
    await build({
      entryPoints: [join(dir, 'client.ts')],
      outfile: join(dir, 'client.mjs'),
      format: 'esm',
      platform: 'node',
      logLevel: 'silent',
    });
    const { run } = (await import(pathToFileURL(join(dir, 'client.mjs')).href)) as { run: RunClient };
    const seen = await run(`${s.url}/v2`, {
      approve: async (url) => {
        const visit = await approveDevice(url);
        expect(visit.status).toBe(200);
      },
      orgId: s.orgId,
      userId: s.ownerId,
    });
    expect(seen.issuer).toBe(`${s.url}/v2/auth`);
    expect(seen.keys).toBeGreaterThan(0);
    expect(seen.pending).toBe('authorization_pending');
    expect(seen.tokenType).toBe('Bearer');
    expect(seen.refreshedScope).toBe('users:read');
    // Without a scope, a refresh gets the scope first granted (RFC 6749 §6), not the one a refresh narrowed to.
    expect(seen.jsonRefresh.scope).toBe('users:read users:write');
    expect(seen.user).toMatchObject({ id: s.ownerId, email: 'owner@acme.test', role: 'owner' });
    expect(seen.team.name).toBe('Generated');
    expect(seen.location).toBe(`/v2/teams/${seen.team.id}`);
    expect(seen.notFound).toBe('not_found');
    expect(seen.afterRevoke).toBe('invalid_grant');
    expect(seen.html).toMatch(/<form/);
  }, 60_000);
});
