import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { remoteTransport } from '../../src/client/transports.js';
import { startServer } from '../../src/platform/server.js';
import { testDatabase } from '../helpers/backend.js';
import { testPlatform } from '../helpers/platform.js';
import { describeClient } from './client-suite.js';

describeClient('the remote transport (undici, real listener)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'plat-remote-'));
  const { db, secretKey } = await testDatabase(join(dir, 'served.db'));
  const t = await testPlatform({ db });
  const server = await startServer({ db, secretKey, host: '127.0.0.1', port: 0, logger: () => {} });
  const transport = await remoteTransport({ connectTimeoutMs: 2_000, requestTimeoutMs: 5_000 });
  return {
    t,
    fetch: transport.fetch,
    baseUrl: `${server.url}/v2`,
    close: async () => {
      await transport.close();
      await server.close();
      await t.platform.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
