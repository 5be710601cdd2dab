import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** The XDG base directory spec says relative values are invalid and must be ignored. */
function absolute(value: string | undefined): string | undefined {
  return value && isAbsolute(value) ? value : undefined;
}

function home(env: NodeJS.ProcessEnv): string {
  return absolute(env.HOME) ?? homedir();
}

/** Where `config.json` (and the credentials file fallback) live: `$PLAT_CONFIG_DIR`, `$XDG_CONFIG_HOME/plat`, `~/.config/plat`. */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.PLAT_CONFIG_DIR) return env.PLAT_CONFIG_DIR;
  const xdg = absolute(env.XDG_CONFIG_HOME);
  return xdg ? join(xdg, 'plat') : join(home(env), '.config', 'plat');
}

/** Where the embedded platform's databases live: `$PLAT_DATA_DIR`, `$XDG_DATA_HOME/plat`, `~/.local/share/plat`. */
export function dataDir(env: NodeJS.ProcessEnv): string {
  if (env.PLAT_DATA_DIR) return env.PLAT_DATA_DIR;
  const xdg = absolute(env.XDG_DATA_HOME);
  return xdg ? join(xdg, 'plat') : join(home(env), '.local', 'share', 'plat');
}
