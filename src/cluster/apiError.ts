// What a Kubernetes API call failed with. @kubernetes/client-node raises an ApiException carrying the HTTP
// status in `code` and the Status object (as text or parsed) in `body`; anything else (a refused
// connection, a DNS failure) has no HTTP status at all.

/** The HTTP status of a failed API call; undefined when the request never got an answer. */
export function apiStatus(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

export const isNotFound = (err: unknown): boolean => apiStatus(err) === 404;

/** What an API call answers, or undefined when its object does not exist (404); any other failure is thrown. */
export async function unlessNotFound<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
export const isConflict = (err: unknown): boolean => apiStatus(err) === 409;
export const isForbidden = (err: unknown): boolean => apiStatus(err) === 403;

/** The message of a failed API call: the Status message with the HTTP status, or the error's own message. */
export function apiMessage(err: unknown): string {
  const status = apiStatus(err);
  if (status === undefined) return err instanceof Error ? err.message : String(err);
  const body = (err as { body?: unknown }).body;
  const message = statusMessage(body);
  return message ? `${message} (HTTP ${status})` : `HTTP ${status}`;
}

function statusMessage(body: unknown): string | undefined {
  let doc = body;
  if (typeof body === 'string') {
    try {
      doc = JSON.parse(body);
    } catch (err) {
      if (err instanceof SyntaxError) return undefined; // not a Status: a proxy's page, say
      throw err;
    }
  }
  const message = (doc as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' && message !== '' ? message : undefined;
}
