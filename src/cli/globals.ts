import type { OutputMode } from './output/render.js';

/** The global options as commander parses them (docs/cli-reference.md, "Global options"). */
export interface GlobalOptions {
  profile?: string;
  org?: string;
  baseUrl?: string;
  sandbox?: boolean;
  db?: string;
  databaseUrl?: string;
  json?: boolean;
  output?: OutputMode;
  color: boolean;
  quiet?: boolean;
  verbose?: boolean;
  requestId?: string;
  yes?: boolean;
  maxRetries?: number;
  apiKeyStdin?: boolean;
}
