import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderReference } from '../../src/platform/http/reference.js';
import { ROUTES } from '../../src/platform/http/routes/index.js';

describe('docs/api-reference.md', () => {
  it('is the reference generated from the route table (run `npm run docs` when this fails)', () => {
    const onDisk = readFileSync(new URL('../../docs/api-reference.md', import.meta.url), 'utf8');
    expect(onDisk).toBe(renderReference(ROUTES));
  });

  it('names every route exactly once with its permission', () => {
    const seen = new Set<string>();
    for (const r of ROUTES) {
      const key = `${r.method} ${r.path}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
      expect(r.access, key).toBeTruthy();
      expect(r.operationId, key).toMatch(/^[a-z][A-Za-z]+$/);
    }
    expect(new Set(ROUTES.map((r) => r.operationId)).size).toBe(ROUTES.length);
  });
});
