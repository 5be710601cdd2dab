import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMBEDDED_BASE_URL, embeddedTransport } from '../../src/cli/embedded.js';
import { testDatabase } from '../helpers/backend.js';
import { testPlatform } from '../helpers/platform.js';
import { describeClient } from './client-suite.js';

describeClient('the platform in-process', async () => {
  const t = await testPlatform();
  return { t, fetch: t.platform.fetch, baseUrl: 'http://plat.test/v2', close: () => t.platform.close() };
});

describeClient('the embedded transport', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'plat-embedded-'));
  const { db, secretKey } = await testDatabase(join(dir, 'nested', 'local.db'));
  // Seeded through one connection, served through the transport's own: the same database, as the CLI uses it.
  const transport = await embeddedTransport({ db, secretKey });
  const t = await testPlatform({ db });
  return {
    t,
    fetch: transport.fetch,
    baseUrl: EMBEDDED_BASE_URL,
    close: async () => {
      await transport.close();
      await t.platform.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
