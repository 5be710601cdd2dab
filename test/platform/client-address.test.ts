import { describe, expect, it } from 'vitest';
import { clientAddress, connectionGroup, plainAddress, trustedProxies } from '../../src/platform/client-address.js';

// Who a request is from behind a proxy (docs/api.md, "Behind a proxy"): only a trusted proxy's X-Forwarded-For is
// believed, and then only its rightmost entry that is not itself a trusted proxy — the entries to its left are
// whatever the client wrote.

describe('trusted proxies', () => {
  const trusted = trustedProxies(['10.0.0.0/8', '192.0.2.1', 'fd00::/8', '::1']);

  it('take addresses and CIDR ranges of both families, IPv4-mapped IPv6 compared as IPv4', () => {
    for (const a of ['10.1.2.3', '::ffff:10.1.2.3', '192.0.2.1', 'fd12::5', '::1'])
      expect(trusted.has(a), a).toBe(true);
    for (const a of ['11.0.0.1', '192.0.2.2', 'fe80::1', '::2', 'not-an-ip', '']) expect(trusted.has(a), a).toBe(false);
  });

  it('refuse an entry that is neither an address nor a range, naming it', () => {
    for (const bad of ['10.0.0.0/33', 'fd00::/129', 'proxy.local', '10.0.0.1/8/8', '10.0.0.0/x', '']) {
      expect(() => trustedProxies([bad]), bad).toThrow(`not an IP address or CIDR range: ${JSON.stringify(bad)}`);
    }
  });
});

describe('the client address', () => {
  const trusted = trustedProxies(['10.0.0.0/8']);

  it('is the peer when no proxy is trusted or the peer is not one: the header is ignored', () => {
    expect(clientAddress('203.0.113.9', '198.51.100.1', undefined)).toBe('203.0.113.9');
    expect(clientAddress('203.0.113.9', '198.51.100.1', trusted)).toBe('203.0.113.9');
    expect(clientAddress('::ffff:203.0.113.9', null, trusted)).toBe('203.0.113.9');
  });

  it('is, from a trusted proxy, the rightmost forwarded address that is not a trusted proxy', () => {
    // The client wrote 1.2.3.4 itself; the proxy appended what it saw.
    expect(clientAddress('10.0.0.5', '1.2.3.4, 198.51.100.7', trusted)).toBe('198.51.100.7');
    // Through two trusted proxies.
    expect(clientAddress('10.0.0.5', '1.2.3.4, 198.51.100.7, 10.9.9.9', trusted)).toBe('198.51.100.7');
    expect(clientAddress('::ffff:10.0.0.5', '::ffff:198.51.100.7', trusted)).toBe('198.51.100.7');
    // All trusted: the leftmost. Nothing usable: the proxy's own.
    expect(clientAddress('10.0.0.5', '10.1.1.1, 10.2.2.2', trusted)).toBe('10.1.1.1');
    expect(clientAddress('10.0.0.5', 'unknown, , garbage', trusted)).toBe('10.0.0.5');
    expect(clientAddress('10.0.0.5', null, trusted)).toBe('10.0.0.5');
  });

  it('reads entries with the port some proxies append, and believes nothing left of an entry that is no address', () => {
    expect(clientAddress('10.0.0.5', '198.51.100.7:5678', trusted)).toBe('198.51.100.7');
    expect(clientAddress('10.0.0.5', '[2001:db8::7]:443', trusted)).toBe('2001:db8::7');
    // The client wrote 9.9.9.9; the proxy's own entry is one it cannot read: the request is the nearest proxy's.
    expect(clientAddress('10.0.0.5', '9.9.9.9, unknown', trusted)).toBe('10.0.0.5');
    expect(clientAddress('10.0.0.5', '9.9.9.9, 1.2.3.4.5', trusted)).toBe('10.0.0.5');
    expect(clientAddress('10.0.0.5', '9.9.9.9, _hidden, 10.1.1.1', trusted)).toBe('10.1.1.1');
  });

  it('is counted against the connection cap by its /64 when it is IPv6', () => {
    expect(connectionGroup('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(connectionGroup('2001:db8:1:2::9')).toBe(connectionGroup('2001:0db8:0001:0002:ffff::1'));
    expect(connectionGroup('2001:db8:1:3::9')).not.toBe(connectionGroup('2001:db8:1:2::9'));
    expect(connectionGroup('::1')).toBe('0:0:0:0::/64');
    expect(connectionGroup('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(connectionGroup('192.0.2.1')).toBe('192.0.2.1');
  });

  it('writes IPv4-mapped IPv6 as IPv4 and leaves every other address as it is', () => {
    expect(plainAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(plainAddress('::ffff:abcd')).toBe('::ffff:abcd');
    expect(plainAddress('2001:db8::1')).toBe('2001:db8::1');
  });
});
