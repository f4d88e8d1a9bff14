// The connection limits of `serve` as its flags and environment give them. The timeouts and the cap at
// work are in test/service/server/connectionLimits.test.ts, the shutdown in test/e2e/http-shutdown.test.ts.
import { describe, expect, it } from 'vitest';
import { DEFAULT_HTTP_LIMITS, resolveServeConfig } from '../../src/config.js';

describe('reliability finding 2: timeouts and caps', () => {
  it('reads the limits from flags and environment, and refuses a headers timeout over the request timeout', () => {
    expect(resolveServeConfig({}, {})).toMatchObject(DEFAULT_HTTP_LIMITS);
    expect(resolveServeConfig({ maxConnections: '50' }, { CINCY_REQUEST_TIMEOUT: '12' })).toMatchObject({
      maxConnections: 50,
      requestTimeout: 12,
    });
    expect(() => resolveServeConfig({ headersTimeout: '20', requestTimeout: '10' }, {})).toThrow(
      "--headers-timeout (CINCY_HEADERS_TIMEOUT): at most --request-timeout, 10, got '20'",
    );
  });
});
