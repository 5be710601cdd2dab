import type { Keytar } from '../../src/auth/keychain-credential-store.js';

/** An in-memory keychain that can be broken on demand: a fault injector, as real ones do not fail on cue. */
export function fakeKeytar() {
  const items = new Map<string, string>();
  const state = { broken: false };
  const check = () => {
    if (state.broken) throw new Error('Cannot autolaunch D-Bus without X11 $DISPLAY');
  };
  const keytar: Keytar = {
    getPassword: async (s, a) => {
      check();
      return items.get(`${s}/${a}`) ?? null;
    },
    setPassword: async (s, a, p) => {
      check();
      items.set(`${s}/${a}`, p);
    },
    deletePassword: async (s, a) => {
      check();
      return items.delete(`${s}/${a}`);
    },
  };
  return { keytar, items, state };
}

/** What a fake keychain holds for an account of plat, parsed. */
export function keychainItem(fake: ReturnType<typeof fakeKeytar>, account: string): Record<string, any> | undefined {
  const raw = fake.items.get(`plat/${account}`);
  return raw === undefined ? undefined : JSON.parse(raw);
}
