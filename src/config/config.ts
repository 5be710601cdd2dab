import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from './atomic-write.js';
import { ConfigError } from './errors.js';

/** One named set of settings. Without `baseUrl` the profile is embedded. Never holds a secret. */
export interface Profile {
  /** A remote instance, ending in `/v2`; absent = the embedded platform. */
  baseUrl?: string;
  /** The remote sandbox instance `--sandbox` switches to. */
  sandboxBaseUrl?: string;
  /** The organization sent as `X-Org-Id`. */
  org?: string;
  /** The organization sent as `X-Org-Id` to the profile's sandbox (an instance with organizations of its own). */
  sandboxOrg?: string;
  /** The embedded platform's database file. */
  db?: string;
}

/** The content of `config.json`. */
export interface Config {
  currentProfile?: string;
  profiles: Record<string, Profile>;
}

/** The config file's name inside the config directory. */
export const CONFIG_FILE = 'config.json';

// Loose objects: fields a newer version wrote survive a round trip through an older one.
const profileSchema = z.looseObject({
  baseUrl: z.string().optional(),
  sandboxBaseUrl: z.string().optional(),
  org: z.string().optional(),
  sandboxOrg: z.string().optional(),
  db: z.string().optional(),
});
const configSchema = z.looseObject({
  currentProfile: z.string().optional(),
  profiles: z.record(z.string(), profileSchema).default({}),
});

/** The path of `config.json` in `dir`. */
export function configPath(dir: string): string {
  return join(dir, CONFIG_FILE);
}

/** Reads `config.json`: a missing file is an empty configuration, an unreadable one a `ConfigError` naming it. */
export async function loadConfig(dir: string): Promise<Config> {
  const path = configPath(dir);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new ConfigError(`cannot read ${path}: ${(err as Error).message}`, path, { cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${path} is not valid JSON; fix it or remove it`, path, { cause: err });
  }
  const parsed = configSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'the top level';
    throw new ConfigError(`${path} is not a valid configuration (${where}: ${issue?.message})`, path);
  }
  return parsed.data as Config;
}

/** Writes `config.json` atomically, mode 0600, in a 0700 directory. */
export async function saveConfig(dir: string, config: Config): Promise<void> {
  writeFileAtomic(configPath(dir), `${JSON.stringify(config, null, 2)}\n`);
}

/** `config.json` as one run of the CLI reads and writes it: read once, then what the run last saved. */
export interface ConfigFile {
  /** The configuration as last read or saved. */
  readonly current: Config;
  /** Writes `next` (atomically, mode 0600) and makes it the current configuration. */
  save(next: Config): Promise<void>;
}

/** Reads `config.json` of `dir` for a run that may write it back. */
export async function openConfigFile(dir: string): Promise<ConfigFile> {
  let current = await loadConfig(dir);
  return {
    get current() {
      return current;
    },
    save: async (next) => {
      await saveConfig(dir, next);
      current = next;
    },
  };
}
