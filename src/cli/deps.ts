import type { Keytar } from '../auth/keychain-credential-store.js';
import type { Fetch } from '../client/client.js';
import type { Resolved } from '../config/resolve.js';
import type { OwnPlatformOptions } from './embedded.js';
import type { InSource, OutStream } from './output/io.js';

/** A way to reach a platform: the client's `fetch` and the base URL it is addressed by. */
export interface Transport {
  fetch: Fetch;
  baseUrl: string;
  close(): void | Promise<void>;
}

/** Everything `run` gets from outside; the optional parts let tests pin time, ids and the transport. */
export interface CliDeps {
  stdout: OutStream;
  stderr: OutStream;
  stdin: InSource;
  env: Record<string, string | undefined>;
  cwd: string;
  clock?: () => Date;
  /** Replaces the transport the settings would pick (tests: a platform with a fixed clock and ids). */
  transport?: (r: Resolved) => Promise<Transport>;
  /** Options for the platforms the CLI opens itself (bootstrap, `local mail`, `serve`). */
  platform?: OwnPlatformOptions;
  /** Credential store overrides (tests force the file store, or give a keychain that fails on cue). */
  credentialStore?: { forceFile?: boolean; timeoutMs?: number; loadKeytar?: () => Promise<Keytar> };
  /** The client's wait between retries (tests make it instant). */
  sleep?: (ms: number) => Promise<void>;
  /** Opens a URL in the browser (`plat login`); default the desktop's opener. Resolves false when it could not. */
  openBrowser?: (url: string) => Promise<boolean>;
  /**
   * Turns on source-mapped stack traces for the code loaded from then on (`serve` calls it first, so that its log
   * names the TypeScript sources of an internal error); only the binary's entry point sets it, as it is process-wide.
   */
  enableSourceMaps?: () => void;
  /** Subscribes to the shutdown signal of `serve`; default SIGINT/SIGTERM. Returns an unsubscribe function. */
  onShutdown?: (handler: () => void) => () => void;
  version?: string;
  /**
   * Called before an embedded command opens the platform, to put light in-process `Request`/`Response` classes in
   * place of Node's (src/startup/light-fetch.ts). Only the binary's entry sets it: they replace the globals for the
   * rest of the process.
   */
  lightFetch?: () => Promise<void>;
}
