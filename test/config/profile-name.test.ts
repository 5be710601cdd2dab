import { describe, expect, it } from 'vitest';
import { PROFILE_NAME, profileNameFor } from '../../src/config/profile-name.js';

const none = () => false;

describe('profileNameFor', () => {
  it('is the host, with the port when the URL names one', () => {
    expect(profileNameFor('http://127.0.0.1:8081/v2', none)).toBe('127.0.0.1-8081');
    expect(profileNameFor('https://api.example.com/v2', none)).toBe('api.example.com');
    expect(profileNameFor('https://api.example.com:443/v2', none)).toBe('api.example.com');
    expect(profileNameFor('http://localhost:8080/plat/v2', none)).toBe('localhost-8080');
    expect(profileNameFor('https://BÜCHER.example/v2', none)).toBe('xn--bcher-kva.example');
  });

  it('spells an IPv6 literal with letters, digits and dashes', () => {
    expect(profileNameFor('http://[::1]:8080/v2', none)).toBe('ipv6-1-8080');
    expect(profileNameFor('http://[fe80::1:2]/v2', none)).toBe('ipv6-fe80-1-2');
  });

  it('adds -2, -3… while the name is taken', () => {
    const taken = new Set(['127.0.0.1-8081', '127.0.0.1-8081-2']);
    expect(profileNameFor('http://127.0.0.1:8081/v2', (n) => taken.has(n))).toBe('127.0.0.1-8081-3');
  });

  it('is always a valid profile name, even for a very long host', () => {
    const host = `${'a'.repeat(60)}.example.com`;
    const name = profileNameFor(`https://${host}/v2`, (n) => n === 'a'.repeat(56));
    expect(name).toBe(`${'a'.repeat(56)}-2`);
    expect(PROFILE_NAME.test(name)).toBe(true);
  });
});
