// The system error codes of a connection that could not be made or was lost (as opposed to an answer, or a
// certificate refused): one list for every client that tells the two apart.

const CONNECTION_FAILURES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  // A name that resolves only once its server is up (a Service, a compose service).
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** Whether `code` (an error's `code`) says the connection could not be made or was lost. */
export const isConnectionFailure = (code: unknown): boolean =>
  typeof code === 'string' && CONNECTION_FAILURES.has(code);
