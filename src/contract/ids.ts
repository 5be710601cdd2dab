/** The kind prefix of every identifier the platform issues. */
export const ID_PREFIX = {
  user: 'user',
  organization: 'org',
  project: 'proj',
  team: 'team',
  invitation: 'inv',
  environment: 'env',
  session: 'sess',
  apiKey: 'key',
  event: 'evt',
  client: 'cli',
  request: 'req',
  mail: 'mail',
  ssoTest: 'ssot',
  domain: 'dom',
  scimToken: 'scimtok',
  webhook: 'wh',
  delivery: 'dlv',
  mfaFactor: 'mfa',
} as const;
export type IdKind = keyof typeof ID_PREFIX;
