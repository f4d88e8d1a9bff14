// The parts of webhooks that need no server: which addresses deliveries may go to
// (src/app/webhooks/destination.ts). A sender checking the address a name resolves to is in send.test.ts.
import { describe, expect, it } from 'vitest';
import { refusedAddress } from '../../../../src/app/webhooks/destination.js';

describe('destinations', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '::1',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '0.0.0.0',
    // IANA's special-purpose ranges past the private ones, and IPv4 carried inside IPv6.
    '192.0.0.1',
    '192.0.2.10',
    '198.51.100.7',
    '203.0.113.9',
    '192.88.99.1',
    '255.255.255.255',
    '64:ff9b::7f00:1',
    '64:ff9b:1::1',
    '2002:7f00:1::1',
    '::7f00:1',
    '::',
    '2001::1',
    '2001:db8::1',
    '100::1',
    '3fff::1',
    'ff02::1',
  ])('refuse %s', (ip) => expect(refusedAddress(ip)).toMatch(/loopback, link-local, private or other special-purpose/));
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700::1111', '172.32.0.1', '::ffff:8.8.8.8', '2a00:1450:4001::200e'])(
    'allow %s',
    (ip) => expect(refusedAddress(ip)).toBeUndefined(),
  );
});
