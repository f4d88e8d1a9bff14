// What a call of a cluster's API failed with: a ClusterApiError carries the HTTP status and the Status
// object's reason and message; anything else (a refused connection, a DNS or TLS failure) has no HTTP
// status at all.
import { isConnectionFailure } from '../networkErrors.js';
import { ClusterApiError } from './api.js';

/** The HTTP status of a failed API call; undefined when the request never got an answer. */
export function apiStatus(err: unknown): number | undefined {
  return err instanceof ClusterApiError ? err.status : undefined;
}

export const isNotFound = (err: unknown): boolean => apiStatus(err) === 404;

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
export const isConflict = (err: unknown): boolean => apiStatus(err) === 409;
export const isForbidden = (err: unknown): boolean => apiStatus(err) === 403;

/** What an API call answers, or undefined when its object does not exist (404); any other failure is thrown. */
export async function unlessNotFound<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** The message of a failed API call: the Status message with the HTTP status, or the error's own message. */
export function apiMessage(err: unknown): string {
  if (!(err instanceof ClusterApiError)) return err instanceof Error ? err.message : String(err);
  return err.message ? `${err.message} (HTTP ${err.status})` : `HTTP ${err.status}`;
}
