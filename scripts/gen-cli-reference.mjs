// Writes docs/cli-reference.md from the built program (`npm run docs:cli` builds first).
import { writeFileSync } from 'node:fs';
import { cliReference } from '../dist/cli/reference.js';

writeFileSync(new URL('../docs/cli-reference.md', import.meta.url), await cliReference());
console.error('wrote docs/cli-reference.md');
