// What a call of a cluster's API failed with: a ClusterApiError carries the HTTP status and the Status
// object's reason and message; anything else (a refused connection, a DNS or TLS failure) has no HTTP
// status at all.
import { ClusterApiError } from './api.js';

/** The HTTP status of a failed API call; undefined when the request never got an answer. */
export function apiStatus(err: unknown): number | undefined {
  return err instanceof ClusterApiError ? err.status : undefined;
}

export const isNotFound = (err: unknown): boolean => apiStatus(err) === 404;

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
