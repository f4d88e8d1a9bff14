// How a delivery is signed: X-Cincy-Signature is `sha256=` and the hex HMAC-SHA256 of the raw body
// bytes, keyed with the subscription's secret (docs/user/webhooks.md shows a receiver checking it).
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-cincy-signature';
export const EVENT_ID_HEADER = 'x-cincy-event-id';
export const TIMESTAMP_HEADER = 'x-cincy-timestamp';
export const ATTEMPT_HEADER = 'x-cincy-attempt';

/** The X-Cincy-Signature value of `body` under `secret`. */
export function sign(body: string | Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
