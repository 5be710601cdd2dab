import { spawn } from 'node:child_process';

/** Whether a browser on this machine can be expected to reach the user; when not, why (for the notice). */
export function browserAvailability(
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): { ok: true } | { ok: false; why: string } {
  // A browser opened on the far side of SSH is not in front of the user, and could not reach their loopback.
  if (env.SSH_CONNECTION || env.SSH_TTY || env.SSH_CLIENT) return { ok: false, why: 'this is an SSH session' };
  if (platform !== 'darwin' && platform !== 'win32' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    return { ok: false, why: 'there is no display (DISPLAY and WAYLAND_DISPLAY are unset)' };
  }
  return { ok: true };
}

/** The command that hands a URL to the desktop's default browser. */
function opener(url: string, platform: NodeJS.Platform): { cmd: string; args: string[]; verbatim?: boolean } {
  if (platform === 'darwin') return { cmd: 'open', args: [url] };
  // `start` takes a window title first; `&` separates commands in cmd.exe and must be escaped.
  if (platform === 'win32')
    return { cmd: 'cmd', args: ['/d', '/s', '/c', `start "" "${url.replace(/&/g, '^&')}"`], verbatim: true };
  return { cmd: 'xdg-open', args: [url] };
}

/**
 * Opens `url` in the default browser, detached (the browser outlives `plat`) with its output ignored. Resolves
 * false when the opener could not be started (not installed); the caller prints the URL in every case.
 */
export function openBrowser(
  url: string,
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): Promise<boolean> {
  const { cmd, args, verbatim } = opener(url, platform);
  return new Promise((resolve) => {
    try {
      const child = spawn(cmd, args, {
        detached: true,
        stdio: 'ignore',
        env: env as NodeJS.ProcessEnv,
        windowsVerbatimArguments: verbatim,
      });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
