// How a delivery is signed, and how a receiver checks it: X-Cincy-Signature is `sha256=` and the hex
// HMAC-SHA256 of the raw body bytes, keyed with the subscription's secret.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-cincy-signature';
export const EVENT_ID_HEADER = 'x-cincy-event-id';
export const TIMESTAMP_HEADER = 'x-cincy-timestamp';
export const ATTEMPT_HEADER = 'x-cincy-attempt';

/** The X-Cincy-Signature value of `body` under `secret`. */
export function sign(body: string | Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Whether `signature` (an X-Cincy-Signature value) is that of `body` under `secret`, compared in constant time. */
export function verifySignature(body: string | Buffer, secret: string, signature: string | undefined): boolean {
  if (!signature) return false;
  const expected = Buffer.from(sign(body, secret));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
