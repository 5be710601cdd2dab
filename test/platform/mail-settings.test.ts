import { describe, expect, it } from 'vitest';
import {
  defaultMailFrom,
  formatMailFrom,
  parseMailFrom,
  parseSmtpUrl,
  passwordScrubber,
} from '../../src/platform/mail/settings.js';

describe('SMTP URLs', () => {
  it('read the host, the port (587, or 465 with smtps), TLS and the percent-encoded credentials', () => {
    expect(parseSmtpUrl('smtp://mail.example.com')).toEqual({
      host: 'mail.example.com',
      port: 587,
      secure: false,
      display: 'smtp://mail.example.com:587',
    });
    expect(parseSmtpUrl('smtps://ops%40example.com:p%40ss%3Aw%2Frd@smtp.example.com/')).toEqual({
      host: 'smtp.example.com',
      port: 465,
      secure: true,
      user: 'ops@example.com',
      password: 'p@ss:w/rd',
      display: 'smtps://ops%40example.com@smtp.example.com:465',
    });
    expect(parseSmtpUrl('smtp://u:p@[::1]:2525')).toMatchObject({
      host: '::1',
      port: 2525,
      display: 'smtp://u@[::1]:2525',
    });
  });

  it('are refused with a reason that never quotes them', () => {
    const refusals: [string, RegExp][] = [
      ['not a url S3CRET', /^it is not a URL: expected smtp:\/\//],
      ['http://u:S3CRET@mail.example.com', /^its scheme is http:\/\/: expected/],
      ['smtp://u:S3CRET@mail.example.com/path', /^it has a path, a query or a fragment/],
      ['smtp://u:S3CRET@mail.example.com?tls=off', /^it has a path, a query or a fragment/],
      ['smtp://:S3CRET@mail.example.com', /^it has a password but no user/],
      ['smtp://u@mail.example.com', /^it has a user but no password/],
      ['smtp://u:S3CRET%zz@mail.example.com', /^its user or password holds a malformed %-escape/],
      ['smtp://u:S3CRET@mail.example.com:0', /^its port is 0/],
      ['smtp://u:S3CRET@mail.example.com:70000', /^it is not a URL/],
    ];
    for (const [url, reason] of refusals) {
      let message = '';
      try {
        parseSmtpUrl(url);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, url).toMatch(reason);
      expect(message, url).not.toContain('S3CRET');
    }
  });

  it('have their password scrubbed from texts in every form it travels in', () => {
    const scrub = passwordScrubber(parseSmtpUrl('smtp://ops:p%40ss@mail.example.com'));
    const plain = Buffer.from('\0ops\0p@ss').toString('base64');
    const login = Buffer.from('p@ss').toString('base64');
    expect(scrub(`a p@ss b p%40ss c ${plain} d ${login}`)).toBe('a *** b *** c *** d ***');
    expect(passwordScrubber(parseSmtpUrl('smtp://mail.example.com'))('p@ss')).toBe('p@ss');
  });
});

describe('the sender', () => {
  it('is an address, with a display name or not', () => {
    expect(parseMailFrom('no-reply@example.com')).toEqual({ address: 'no-reply@example.com' });
    expect(parseMailFrom('Acme Platform <no-reply@example.com>')).toEqual({
      name: 'Acme Platform',
      address: 'no-reply@example.com',
    });
    expect(parseMailFrom('"Acme, Inc." <no-reply@example.com>')).toEqual({
      name: 'Acme, Inc.',
      address: 'no-reply@example.com',
    });
    for (const bad of ['nobody', 'A <b>', 'x\r\nBcc: y@z.test <a@b.test>', 'a@b@c']) {
      expect(() => parseMailFrom(bad), bad).toThrow(/is not an e-mail address/);
    }
  });

  it('defaults to plat <no-reply@HOST of the public URL>, localhost for an IP address', () => {
    expect(formatMailFrom(defaultMailFrom('https://plat.example.com'))).toBe('plat <no-reply@plat.example.com>');
    expect(formatMailFrom(defaultMailFrom('http://127.0.0.1:8080'))).toBe('plat <no-reply@localhost>');
    expect(formatMailFrom(defaultMailFrom('http://[::1]:8080'))).toBe('plat <no-reply@localhost>');
  });
});
