import type { CDPSession, Page } from 'playwright-core';

/** A passkey a virtual authenticator holds, as Chromium's DevTools protocol lists it (`WebAuthn.getCredentials`). */
export interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  privateKey: string;
  userHandle?: string;
  signCount: number;
}

/** A virtual authenticator attached to one page (Chromium's WebAuthn domain): what WebAuthn calls reach in the page. */
export interface VirtualAuthenticator {
  cdp: CDPSession;
  id: string;
  /** The passkeys it holds now. */
  credentials(): Promise<VirtualCredential[]>;
  /** Gives it a passkey another authenticator made (the same person on another page). */
  add(credential: VirtualCredential): Promise<void>;
}

/**
 * Attaches a platform authenticator to `page` that holds discoverable credentials and verifies its user (as a phone's
 * or a laptop's passkeys do), answering at once: no prompt, no person.
 */
export async function virtualAuthenticator(page: Page): Promise<VirtualAuthenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId: id } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      ctap2Version: 'ctap2_1',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    cdp,
    id,
    credentials: async () =>
      (await cdp.send('WebAuthn.getCredentials', { authenticatorId: id })).credentials as VirtualCredential[],
    add: async (credential) => {
      await cdp.send('WebAuthn.addCredential', { authenticatorId: id, credential });
    },
  };
}
