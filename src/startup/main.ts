/**
 * The bundle's entry (dist/bundle/main.js, run by bin/plat.js): the CLI's `main`, with the start-up tricks that need
 * its cooperation handed to it — the light in-process `Request`/`Response` for embedded commands (light-fetch.ts).
 */
import { main as cliMain } from '../cli/main.js';

/** Runs the command line of this process. */
export function main(): Promise<void> {
  return cliMain({ lightFetch: async () => void (await import('./light-fetch.js')).installLightFetch() });
}
