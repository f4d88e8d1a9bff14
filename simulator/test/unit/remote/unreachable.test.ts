// Which failed calls of the API server the simulated cluster waits out (simulator/src/remote/unreachable.ts).
import { describe, expect, it } from 'vitest';
import { ClusterApiError } from 'cincy/cluster/api';
import { isUnreachable } from '@cincy/simulator/remote/unreachable';

const failure = (code: string, message = code): Error => Object.assign(new Error(message), { code });

describe('isUnreachable', () => {
  it.each([
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EAI_AGAIN',
    'ENOTFOUND',
    'UND_ERR_SOCKET',
    'UND_ERR_CONNECT_TIMEOUT',
  ])('%s: nothing answers yet, which may pass', (code) => {
    expect(isUnreachable(failure(code))).toBe(true);
    expect(isUnreachable(new TypeError('fetch failed', { cause: failure(code) }))).toBe(true);
  });

  it.each(['DEPTH_ZERO_SELF_SIGNED_CERT', 'ERR_TLS_CERT_ALTNAME_INVALID', 'ERR_INVALID_URL'])(
    '%s: waiting will not change it',
    (code) => expect(isUnreachable(failure(code))).toBe(false),
  );

  it("a request's own deadline (AbortSignal.timeout) may pass", () => {
    expect(isUnreachable(new DOMException('The operation was aborted due to timeout', 'TimeoutError'))).toBe(true);
  });

  it('an answer, a bug or a non-error is not a transport failure', () => {
    expect(isUnreachable(new ClusterApiError(503, 'ServiceUnavailable', 'starting'))).toBe(false);
    expect(isUnreachable(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
    expect(isUnreachable('ECONNREFUSED')).toBe(false);
  });
});
