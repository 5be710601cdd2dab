// Writes docs/api-reference.md and docs/openapi.json from the built route table (run `npm run build` first; `npm run
// docs` does both). The OpenAPI document is the one `GET /v2/openapi.json` serves, kept in the repository for those
// who generate a client without running a server (and linted by Redocly in the test suite).
import { writeFileSync } from 'node:fs';
import { buildOpenApi } from '../dist/platform/http/openapi.js';
import { renderReference } from '../dist/platform/http/reference.js';
import { ROUTES } from '../dist/platform/http/routes/index.js';

writeFileSync(new URL('../docs/api-reference.md', import.meta.url), renderReference(ROUTES));
writeFileSync(new URL('../docs/openapi.json', import.meta.url), `${JSON.stringify(buildOpenApi(ROUTES), null, 2)}\n`);
console.error('wrote docs/api-reference.md and docs/openapi.json');
