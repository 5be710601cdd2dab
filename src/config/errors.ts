import type { FailureKind } from '../contract/errors.js';

/**
 * A command line that cannot work as given (exit code 2): an unknown flag or profile, conflicting options, a missing
 * `--yes` without a terminal. The one usage error of every layer (src/cli/errors.ts re-exports it).
 */
export class UsageError extends Error {
  readonly kind: FailureKind = 'usage';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A configuration or credentials file that cannot be read or written; names the file, never its content. */
export class ConfigError extends Error {
  /** The file concerned. */
  readonly path: string;

  constructor(message: string, path: string, opts: { cause?: unknown } = {}) {
    super(message, opts);
    this.name = 'ConfigError';
    this.path = path;
  }
}
