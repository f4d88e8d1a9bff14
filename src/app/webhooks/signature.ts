// How a delivery is signed: X-Cincy-Signature is `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw
// body>">`, keyed with the subscription's secret. The time is inside what is signed, so a delivery
// captured on its way cannot be sent again as new: a receiver refuses a `t` older than a few minutes
// (docs/user/webhooks.md shows one checking both). Each attempt is signed at its own time.
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-cincy-signature';
export const EVENT_ID_HEADER = 'x-cincy-event-id';
export const TIMESTAMP_HEADER = 'x-cincy-timestamp';
export const ATTEMPT_HEADER = 'x-cincy-attempt';

/** The X-Cincy-Signature value of `body` sent at `seconds` (since 1970) under `secret`. */
export function sign(body: string | Buffer, secret: string, seconds: number): string {
  const mac = createHmac('sha256', secret).update(`${seconds}.`).update(body).digest('hex');
  return `t=${seconds},v1=${mac}`;
}
