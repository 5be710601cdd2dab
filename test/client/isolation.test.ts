import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emitted, emitSources } from '../helpers/emit.js';

/**
 * Runs in a fresh Node process (no vitest in it): uses one transport the way the CLI does, then reports whether
 * better-sqlite3 (its JS in the CommonJS cache, or its native addon among the loaded shared objects) and undici
 * were loaded. Both packages are CommonJS, so an ESM import of either lands in the cache too.
 */
const PROBE = `
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const mode = process.argv[2];
const { PlatformClient } = await import('./src/client/client.js');
const transports = await import('./src/client/transports.js');
if (mode === 'remote') {
  const t = await transports.remoteTransport({ connectTimeoutMs: 500 });
  const client = new PlatformClient({ fetch: t.fetch, baseUrl: 'http://127.0.0.1:9/v2', auth: async () => ({}), maxRetries: 0 });
  const err = await client.organizations.list().catch((e) => e);
  if (err.name !== 'NetworkError') throw new Error('expected a NetworkError, got ' + err);
  await t.close();
} else {
  const { embeddedTransport } = await import('./src/cli/embedded.js');
  const t = await embeddedTransport({ db: ':memory:' });
  const client = new PlatformClient({ fetch: t.fetch, baseUrl: t.baseUrl, auth: async () => ({}) });
  const err = await client.organizations.list().catch((e) => e);
  if (err.status !== 401) throw new Error('expected a 401 from the embedded platform, got ' + err);
  t.close();
}
const cached = Object.keys(require.cache);
const shared = process.report.getReport().sharedObjects;
const has = (name) => cached.some((p) => p.split(/[\\\\/]/).includes(name));
console.log(JSON.stringify({
  sqlite: has('better-sqlite3') || shared.some((s) => s.includes('better_sqlite3')),
  undici: has('undici'),
}));
`;

describe('each transport loads only what it needs', () => {
  let emitted: Emitted;
  beforeAll(() => {
    emitted = emitSources(['src/client/client.ts', 'src/client/transports.ts', 'src/cli/embedded.ts']);
    writeFileSync(join(emitted.dir, 'probe.mjs'), PROBE);
  }, 120_000);
  afterAll(() => emitted?.remove());

  const probe = (mode: 'remote' | 'embedded') => {
    const r = spawnSync(process.execPath, [join(emitted.dir, 'probe.mjs'), mode], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`probe failed:\n${r.stderr}`);
    return JSON.parse(r.stdout.trim().split('\n').at(-1) as string);
  };

  // Each run is also the other's control: the detector sees the package the transport does load.
  it('the remote transport loads undici and never SQLite', () => {
    expect(probe('remote')).toEqual({ sqlite: false, undici: true });
  });

  it('the embedded transport loads SQLite and never undici', () => {
    expect(probe('embedded')).toEqual({ sqlite: true, undici: false });
  });
});
