import { LightHeaders, LightRequest, LightResponse } from '../../src/client/light-fetch.js';

const LIGHT = { Headers: LightHeaders, Request: LightRequest, Response: LightResponse };

/**
 * Puts plat's light fetch classes in place of Node's for a while, as the binary does for an embedded command (there
 * for good, while Node's are still unloaded; here over Node's, whatever their state). Returns the undo. Nothing else
 * in the process may use fetch meanwhile: tests call it around in-process work only.
 */
export function useLightFetch(): () => void {
  const saved = Object.keys(LIGHT).map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)] as const);
  for (const [name, value] of Object.entries(LIGHT)) {
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true });
  }
  return () => {
    for (const [name, descriptor] of saved) if (descriptor) Object.defineProperty(globalThis, name, descriptor);
  };
}
