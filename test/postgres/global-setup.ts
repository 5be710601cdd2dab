import type { TestProject } from 'vitest/node';
import { createPlatform } from '../../src/platform/index.js';
import { TEMPLATE_DATABASE, TEST_SECRET_KEY } from '../helpers/backend.js';
import { startPostgres } from '../helpers/postgres.js';

/**
 * The PostgreSQL run's cluster: started once for the run, with a migrated template database that each test's
 * database is copied from (`testDatabase`), and removed at the end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startPostgres();
  const pg = (await import('pg')).default;
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  await admin.end();
  const template = new URL(cluster.url);
  template.pathname = `/${TEMPLATE_DATABASE}`;
  const platform = await createPlatform({ db: template.href, secretKey: TEST_SECRET_KEY, logger: () => {} });
  await platform.close();
  project.provide('platPostgresUrl', cluster.url);
  return async () => cluster.stop();
}
