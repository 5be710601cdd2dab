import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { configDir, dataDir } from '../../src/config/paths.js';

describe('configDir', () => {
  it('prefers PLAT_CONFIG_DIR, then XDG_CONFIG_HOME/plat, then ~/.config/plat', () => {
    const env = { HOME: '/home/ann', XDG_CONFIG_HOME: '/xdg/config', PLAT_CONFIG_DIR: '/custom/conf' };
    expect(configDir(env)).toBe('/custom/conf');
    expect(configDir({ ...env, PLAT_CONFIG_DIR: undefined })).toBe('/xdg/config/plat');
    expect(configDir({ HOME: '/home/ann' })).toBe('/home/ann/.config/plat');
  });

  it('ignores a relative XDG_CONFIG_HOME, as the XDG spec requires', () => {
    expect(configDir({ HOME: '/home/ann', XDG_CONFIG_HOME: 'relative/dir' })).toBe('/home/ann/.config/plat');
  });

  it('falls back to the account home directory without HOME', () => {
    expect(configDir({})).toBe(`${homedir()}/.config/plat`);
  });
});

describe('dataDir', () => {
  it('prefers PLAT_DATA_DIR, then XDG_DATA_HOME/plat, then ~/.local/share/plat', () => {
    const env = { HOME: '/home/ann', XDG_DATA_HOME: '/xdg/data', PLAT_DATA_DIR: '/custom/data' };
    expect(dataDir(env)).toBe('/custom/data');
    expect(dataDir({ ...env, PLAT_DATA_DIR: undefined })).toBe('/xdg/data/plat');
    expect(dataDir({ HOME: '/home/ann' })).toBe('/home/ann/.local/share/plat');
    expect(dataDir({ HOME: '/home/ann', XDG_DATA_HOME: './data' })).toBe('/home/ann/.local/share/plat');
  });
});
