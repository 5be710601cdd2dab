/** What is kept per profile: an API key, or the tokens of `plat login`. */
export interface StoredCredential {
  apiKey?: string;
  accessToken?: string;
  refreshToken?: string;
  expiresAt?: string;
  scopes?: string[];
  clientId?: string;
  issuer?: string;
}

/** Where credentials live; one interface over the OS keychain and the file fallback. */
export interface CredentialStore {
  kind: 'keychain' | 'file';
  /** `OS keychain (service plat)`, or the file's path. */
  location: string;
  get(profile: string): Promise<StoredCredential | undefined>;
  set(profile: string, credential: StoredCredential): Promise<void>;
  delete(profile: string): Promise<void>;
}
