// Amazon Cognito's users as `plat users import --from cognito` reads them. The samples follow:
// - https://docs.aws.amazon.com/cognito/latest/developerguide/cognito-user-pools-using-import-tool-csv-header.html (the
//   CSV header `aws cognito-idp get-csv-header` gives, with custom attributes);
// - https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_ListUsers.html and
//   https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_UserType.html (what
//   `aws cognito-idp list-users` prints).
// Cognito exports no password hashes: no row has one.
import { describe, expect, it } from 'vitest';
import { byEmail, rowsOf, secretsOf } from './provider-rows.js';

describe('--from cognito', () => {
  it("reads the import template's CSV: names, verified e-mails, the username and custom attributes", async () => {
    const { rows, halt } = await rowsOf('cognito', 'cognito-users.csv');
    expect(halt).toBeUndefined();
    expect(byEmail(rows)).toEqual({
      items: {
        'john@example.com': {
          email: 'john@example.com',
          name: 'John Doe',
          emailVerified: true,
          metadata: {
            importedFrom: 'cognito',
            cognitoUsername: 'johndoe',
            preferredUsername: 'jdoe',
            phone: '+15555551212',
            locale: 'fr-FR',
            zoneinfo: 'Europe/Paris',
            'custom.department': 'Engineering',
          },
        },
        'jane@example.com': {
          email: 'jane@example.com',
          name: 'Jane Roe',
          metadata: { importedFrom: 'cognito', cognitoUsername: 'janeroe' },
        },
      },
      failures: ['4 -: email: missing'],
    });
    for (const secret of secretsOf('cognito-users.csv')) expect(JSON.stringify(rows)).not.toContain(secret);
    expect(JSON.stringify(rows)).not.toContain('passwordHash');
  });

  it('reads list-users JSON ({"Users": [ … ]}): disabled users suspended, the status and sub kept', async () => {
    const { rows, halt } = await rowsOf('cognito', 'cognito-list-users.json');
    expect(halt).toBeUndefined();
    expect(byEmail(rows)).toEqual({
      items: {
        'mary@example.com': {
          email: 'mary@example.com',
          name: 'Mary Major',
          emailVerified: true,
          metadata: {
            importedFrom: 'cognito',
            cognitoUsername: '22704aa3-fc10-479a-97eb-2af5806bd327',
            cognitoSub: '22704aa3-fc10-479a-97eb-2af5806bd327',
            cognitoStatus: 'CONFIRMED',
            cognitoCreatedAt: '2024-02-01T09:15:00.123000+00:00',
            'custom.plan': 'gold',
          },
        },
        'diego@example.com': {
          email: 'diego@example.com',
          name: 'Diego Ramirez',
          status: 'suspended',
          metadata: {
            importedFrom: 'cognito',
            cognitoUsername: '7b4e5cb1-3f4e-4d2a-9a1e-4a7d0cf3b2aa',
            cognitoSub: '7b4e5cb1-3f4e-4d2a-9a1e-4a7d0cf3b2aa',
            cognitoStatus: 'FORCE_CHANGE_PASSWORD',
            cognitoCreatedAt: '2024-03-05T11:00:00.000000+00:00',
          },
        },
      },
      failures: [],
    });
    // Rows carry the line their user starts on in the pretty-printed output.
    expect(rows.map((r) => r.line)).toEqual([3, 32]);
  });

  it('refuses a CSV without an email column, and JSON it does not print', async () => {
    await expect(rowsOf('cognito', 'users.csv', { text: 'cognito:username,name\nada,Ada\n' })).rejects.toThrow(
      'line 1: no email column: the header must name one; nothing was imported',
    );
    await expect(rowsOf('cognito', 'users.csv', { text: '[{"email": "a@example.com"}]' })).rejects.toThrow(
      'users.csv is a JSON array: plat reads a CSV with the header `aws cognito-idp get-csv-header` prints, or the ' +
        'JSON of `aws cognito-idp list-users` ({"Users": [ … ]}); nothing was imported',
    );
  });
});
