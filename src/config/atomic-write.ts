import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a private file so that readers see the old content or the new, never half of it: a temporary file in the
 * same directory (created 0600, so the secret is never readable by others even for an instant), flushed, renamed
 * over the target. The directory is created 0700 when missing.
 */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let renamed = false;
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    // The mode given to open() is filtered by the umask; set it exactly.
    await chmod(temp, 0o600);
    await rename(temp, path);
    renamed = true;
  } finally {
    if (!renamed) await unlink(temp).catch(() => {});
  }
}
