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
    '0.0.0.0',
  ])('refuse %s', (ip) => expect(refusedAddress(ip)).toMatch(/loopback, link-local or private/));
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700::1111', '172.32.0.1'])('allow %s', (ip) =>
    expect(refusedAddress(ip)).toBeUndefined(),
  );
});
