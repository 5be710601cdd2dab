import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CERT_A, certificateRecord, samlMetadata } from '../helpers/idp-documents.js';
import { cleanUpProcesses, processHome, startPlat } from '../helpers/spawn.js';

/** `plat sso` as a user meets it: each command a spawned `plat`, started from its snapshot as an installed one is. */
afterAll(cleanUpProcesses);

const plat = (env: Record<string, string>, argv: string[]) => startPlat(env, argv).done;

describe('plat sso set', () => {
  it('reads SAML metadata from a file, and the platform checks it (7 with its reason when it is not usable)', async () => {
    const env = processHome('plat-sso');
    const file = join(env.HOME as string, 'idp.xml');
    writeFileSync(file, samlMetadata({ entityId: 'https://idp.acme.test', ssoUrl: 'https://idp.acme.test/sso' }));
    const set = [
      'sso',
      'set',
      '--protocol',
      'saml',
      '--provider',
      'okta',
      '--map',
      'email=mail',
      '--domain',
      'acme.test',
    ];
    const r = await plat(env, ['-q', ...set, '--metadata-file', file, '--json']);
    expect(r, r.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(r.stdout)).toMatchObject({
      idpEntityId: 'https://idp.acme.test',
      idpSsoUrl: 'https://idp.acme.test/sso',
      certificates: [certificateRecord(CERT_A)],
      domains: ['acme.test'],
    });
    writeFileSync(file, '<EntityDescriptor/>');
    expect(await plat(env, [...set, '--metadata-file', file])).toMatchObject({
      code: 7,
      stdout: '',
      stderr: expect.stringMatching(
        /^plat: metadataXml: the metadata is not SAML 2\.0 metadata \(no md:EntityDescriptor\) \[request req_\w+\]\n$/,
      ),
    });
  });
});
