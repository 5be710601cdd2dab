import { readFileSync } from 'node:fs';

/** package.json's version, written into the bundle by scripts/bundle.mjs; not defined when plat runs from source. */
declare const PLAT_VERSION: string | undefined;

/** The package's version — what `plat --version` and `GET /health` report: the bundle's own, or package.json's. */
export function packageVersion(): string {
  if (typeof PLAT_VERSION === 'string') return PLAT_VERSION;
  fromSource ??= (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
  return fromSource;
}

let fromSource: string | undefined;
