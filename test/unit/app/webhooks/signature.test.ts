// The parts of webhooks that need no server: signatures (src/app/webhooks/signature.ts), and the check
// a receiver makes (test/support/webhookReceiver.ts). The other parts are beside it (backoff, outbox,
// validation, destination, send).
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sign } from '../../../../src/app/webhooks/signature.js';
import { SIGNATURE_TOLERANCE_SECONDS, verifyWebhookSignature } from '../../../support/webhookReceiver.js';

const SECRET = 'secret-0123456789';
const NOW = 1_796_000_000;

describe('signatures', () => {
  it('are t=<seconds>,v1= and the hex HMAC-SHA256 of "<seconds>.<raw body>"', () => {
    const body = '{"id":"x"}';
    const mac = createHmac('sha256', 'k'.repeat(16)).update(`${NOW}.${body}`).digest('hex');
    expect(sign(body, 'k'.repeat(16), NOW)).toBe(`t=${NOW},v1=${mac}`);
  });

  it('verify only with the same secret, body and time, within the tolerance', () => {
    const s = sign('body', SECRET, NOW);
    expect(verifyWebhookSignature('body', SECRET, s, NOW)).toBe(true);
    expect(verifyWebhookSignature('body', SECRET, s, NOW + SIGNATURE_TOLERANCE_SECONDS)).toBe(true);
    expect(verifyWebhookSignature('body ', SECRET, s, NOW)).toBe(false);
    expect(verifyWebhookSignature('body', 'secret-0123456788', s, NOW)).toBe(false);
    expect(verifyWebhookSignature('body', SECRET, undefined, NOW)).toBe(false);
    expect(verifyWebhookSignature('body', SECRET, 'sha256=00', NOW)).toBe(false);
  });

  it('cannot be replayed: an old one is refused, and a new time does not match the old mac', () => {
    const captured = sign('body', SECRET, NOW);
    // Sent again ten minutes later, as it was captured.
    expect(verifyWebhookSignature('body', SECRET, captured, NOW + 600)).toBe(false);
    // With its time moved forward: the mac was made over the old time.
    const moved = captured.replace(`t=${NOW}`, `t=${NOW + 600}`);
    expect(verifyWebhookSignature('body', SECRET, moved, NOW + 600)).toBe(false);
    // Each attempt is signed at its own time: the same body, two signatures.
    expect(sign('body', SECRET, NOW + 1)).not.toBe(captured);
  });
});
