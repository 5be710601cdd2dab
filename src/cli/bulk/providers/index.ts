import { auth0 } from './auth0.js';
import { clerk } from './clerk.js';
import { cognito } from './cognito.js';
import { firebase } from './firebase.js';
import type { Provider, ProviderName } from './provider.js';

/** The systems `--from` reads, by name. */
export const PROVIDERS: Record<ProviderName, Provider> = { auth0, firebase, cognito, clerk };
