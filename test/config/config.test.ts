import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/config/atomic-write.js';
import { type Config, loadConfig, saveConfig } from '../../src/config/config.js';
import { ConfigError } from '../../src/config/errors.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'plat-config-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

describe('loadConfig / saveConfig', () => {
  it('reads a missing file as an empty configuration', async () => {
    await expect(loadConfig(join(root, 'none'))).resolves.toEqual({ profiles: {} });
  });

  it('round-trips, creating the directory 0700 and the file 0600', async () => {
    const dir = join(root, 'a', 'plat');
    const config: Config = {
      currentProfile: 'prod',
      profiles: { prod: { baseUrl: 'https://api.example.com/v2', org: 'org_1' }, local: { db: '/tmp/x.db' } },
    };
    await saveConfig(dir, config);
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'config.json'))).toBe(0o600);
    await expect(loadConfig(dir)).resolves.toEqual(config);
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('replaces the file by rename (a new inode), tightening a loose mode', async () => {
    const dir = join(root, 'plat');
    mkdirSync(dir);
    const path = join(dir, 'config.json');
    writeFileSync(path, '{"profiles":{}}');
    chmodSync(path, 0o644);
    const before = statSync(path).ino;
    await saveConfig(dir, { profiles: { a: {} } });
    expect(statSync(path).ino).not.toBe(before);
    expect(mode(path)).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ profiles: { a: {} } });
  });

  it('keeps fields a newer version wrote', async () => {
    const dir = join(root, 'plat');
    mkdirSync(dir);
    writeFileSync(join(dir, 'config.json'), '{"profiles":{"p":{"baseUrl":"https://x/v2","future":1}},"later":true}');
    const config = await loadConfig(dir);
    await saveConfig(dir, config);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual({
      profiles: { p: { baseUrl: 'https://x/v2', future: 1 } },
      later: true,
    });
  });

  it('names the file when it is not JSON', async () => {
    const dir = join(root, 'plat');
    mkdirSync(dir);
    writeFileSync(join(dir, 'config.json'), '{"profiles": {');
    const err = await loadConfig(dir).catch((e) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.path).toBe(join(dir, 'config.json'));
    expect(err.message).toBe(`${join(dir, 'config.json')} is not valid JSON; fix it or remove it`);
  });

  it('names the field when the shape is wrong', async () => {
    const dir = join(root, 'plat');
    mkdirSync(dir);
    writeFileSync(join(dir, 'config.json'), '{"profiles":{"prod":{"baseUrl":42}}}');
    const err = await loadConfig(dir).catch((e) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain('profiles.prod.baseUrl');
  });
});

describe('writeFileAtomic', () => {
  it('leaves no temporary file behind when the rename fails', () => {
    const target = join(root, 'occupied');
    mkdirSync(join(target, 'child'), { recursive: true });
    expect(() => writeFileAtomic(target, 'x')).toThrow();
    expect(readdirSync(root)).toEqual(['occupied']);
  });
});
