// The parts of webhooks that need no server: signatures (src/app/webhooks/signature.ts), and the check
// a receiver makes (test/support/webhookReceiver.ts). The other parts are beside it (backoff, outbox,
// validation, destination, send).
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sign } from '../../../../src/app/webhooks/signature.js';
import { verifyWebhookSignature } from '../../../support/webhookReceiver.js';

describe('signatures', () => {
  it('are sha256= and the hex HMAC-SHA256 of the raw body', () => {
    const body = '{"id":"x"}';
    expect(sign(body, 'k'.repeat(16))).toBe(
      `sha256=${createHmac('sha256', 'k'.repeat(16)).update(body).digest('hex')}`,
    );
  });
  it('verify only with the same secret and body', () => {
    const s = sign('body', 'secret-0123456789');
    expect(verifyWebhookSignature('body', 'secret-0123456789', s)).toBe(true);
    expect(verifyWebhookSignature('body ', 'secret-0123456789', s)).toBe(false);
    expect(verifyWebhookSignature('body', 'secret-0123456788', s)).toBe(false);
    expect(verifyWebhookSignature('body', 'secret-0123456789', undefined)).toBe(false);
    expect(verifyWebhookSignature('body', 'secret-0123456789', 'sha256=00')).toBe(false);
  });
});
