// SIGTERM closes slow and idle connections of a `cincy serve` process within --shutdown-timeout. The
// timeouts and the cap on a server in this process are in test/service/server/connectionLimits.test.ts.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveCli, useCleanup } from '../support/cli.js';
import { requestHead, useRawConnections } from '../support/rawHttp.js';
import { writeTree } from '../support/trees.js';

const cleanup = useCleanup();
const { connect, trickle } = useRawConnections(cleanup);

describe('reliability finding 2: timeouts and caps', () => {
  it('exits on SIGTERM within --shutdown-timeout while a client sends its headers slowly and another idles', async () => {
    const served = await serveCli(
      [
        '--db',
        join(cleanup.dir(), 'cincy.db'),
        '--graph-data',
        writeTree(join(cleanup.dir(), 'tree')),
        '--request-timeout',
        '600',
        '--headers-timeout',
        '600',
        '--keep-alive-timeout',
        '600',
        '--shutdown-timeout',
        '1',
      ],
      cleanup,
    );
    const idle = await connect(served.url);
    idle.write(requestHead('GET', '/livez'));
    expect((await idle.response(5000)).status).toBe(200);
    const slow = await connect(served.url);
    trickle(slow, requestHead('GET', '/graph?channel=stable-4.1', { 'x-padding': 'x'.repeat(10_000) })); // 500 s
    await new Promise((r) => setTimeout(r, 300)); // the request has started

    const exited = new Promise<number | null>((resolve) => served.child.once('exit', (code) => resolve(code)));
    served.child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running'), 10_000))]);
    expect(code).toBe(0);
    expect(idle.closed && slow.closed).toBe(true);
  });
});
