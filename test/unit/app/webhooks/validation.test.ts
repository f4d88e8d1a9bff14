// The parts of webhooks that need no server: what a subscription request must be
// (src/app/webhooks/validation.ts). The other parts are beside it (signature, backoff, outbox, destination, send).
import { describe, expect, it } from 'vitest';
import { subscriptionProblems } from '../../../../src/app/webhooks/validation.js';

describe('subscription requests', () => {
  const ok = { url: 'https://hooks.example.com/cincy', kinds: ['edge-added'], secret: 's'.repeat(16) };
  it('take a valid one', () => {
    expect(subscriptionProblems(ok)).toEqual([]);
    expect(subscriptionProblems({ ...ok, channel: 'stable-4.16', arch: 'amd64' })).toEqual([]);
  });
  it.each([
    [{ url: 'not a url' }, 'url:'],
    [{ url: 'ftp://x/y' }, 'url: the scheme'],
    [{ url: 'https://u:p@x/y' }, 'url: must not hold'],
    [{ kinds: [] }, 'kinds: name at least one'],
    [{ kinds: ['edge-added', 'nope'] }, 'kinds: "nope"'],
    [{ kinds: ['edge-added', 'edge-added'] }, 'kinds: names a kind twice'],
    [{ secret: 'short' }, 'secret: must be 16 to 256'],
    [{ secret: 'x'.repeat(257) }, 'secret: must be 16 to 256'],
    [{ channel: 'bad channel' }, 'channel:'],
    [{ arch: '../x' }, 'arch:'],
  ])('refuse %j naming the field', (bad, message) => {
    const problems = subscriptionProblems({ ...ok, ...bad });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(message);
  });
});
