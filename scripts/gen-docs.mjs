// Writes docs/api-reference.md from the built route table (run `npm run build` first; `npm run docs` does both).
import { writeFileSync } from 'node:fs';
import { renderReference } from '../dist/platform/http/reference.js';
import { ROUTES } from '../dist/platform/http/routes/index.js';

writeFileSync(new URL('../docs/api-reference.md', import.meta.url), renderReference(ROUTES));
console.error('wrote docs/api-reference.md');
