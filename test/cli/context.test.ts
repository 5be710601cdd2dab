import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createContext } from '../../src/cli/context.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A context for a fresh machine (no configuration, no embedded platform yet), as `run` makes it. */
function freshContext() {
  const dir = mkdtempSync(join(tmpdir(), 'plat-context-'));
  dirs.push(dir);
  const sink = { write: () => true, isTTY: false };
  return createContext(
    {
      stdout: sink as never,
      stderr: sink as never,
      stdin: { isTTY: false } as never,
      env: { PLAT_CONFIG_DIR: join(dir, 'config'), PLAT_DATA_DIR: join(dir, 'data'), PLAT_CREDENTIAL_STORE: 'file' },
      cwd: dir,
    },
    () => ({ quiet: true }) as never,
  );
}

describe('the CLI context', () => {
  it('refuses to look the credential up before the embedded platform is made, rather than remember none', async () => {
    const { ctx, close } = freshContext();
    await expect(ctx.credential()).rejects.toThrow('ctx.endpoint() must be taken before ctx.credential()');
    await close();
  });

  it('finds the embedded platform’s key once the endpoint was made ready', async () => {
    const { ctx, close } = freshContext();
    const r = await ctx.endpoint();
    expect(r.kind).toBe('embedded');
    expect(await ctx.credential()).toMatchObject({ type: 'api key', source: 'store' });
    await close();
  });
});
