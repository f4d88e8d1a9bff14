// Which failed calls of the API server the simulated cluster waits out (a server not started yet,
// restarting, out of reach for a moment) and which end it (a certificate refused, a bug).
import { isConnectionFailure } from 'cincy/networkErrors';

/** undici's own codes for a connection cut or an answer that did not come in time. */
const UNDICI_PASSING = new Set([
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * Whether a call got no answer for a reason that may pass (a server not started yet, restarting, out of
 * reach for a moment, its name not served yet), as opposed to one that will not (a certificate refused, a
 * bug): the error's code or name, or its cause's.
 */
export function isUnreachable(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (isConnectionFailure(code) || UNDICI_PASSING.has(String(code))) return true;
    // A request's own deadline (AbortSignal.timeout): a server that takes the connection but does not answer.
    if (e.name === 'TimeoutError') return true;
  }
  return false;
}
