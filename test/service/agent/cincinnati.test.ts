// The agent's rules that need an HTTP answer, those of fetching the graph (src/agent/cincinnati.ts): the
// input checks ending in a request, one deadline and a size cap for the whole fetch, the CVO's request and
// ResponseFailed, each against a server of its own in this process. test/unit/agent/cincinnati.test.ts has
// the rules on plain values; the PromQL cache and deadline are in risks.test.ts.
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { fetchGraph, RetrieveError } from '../../../src/agent/cincinnati.js';

async function reason(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof RetrieveError) return `${err.reason}: ${err.message}`;
    throw err;
  }
}

describe('agent rules', () => {
  it('checks its inputs in the order of the cluster-version-operator', async () => {
    const base = {
      upstream: 'http://127.0.0.1:1/graph',
      clusterID: '8f2c1f6e-3b0a-4c1e-9d4f-1a2b3c4d5e6f',
      arch: 'amd64',
      channel: 'stable-4.16',
      version: '4.16.3',
    };
    expect(await reason(fetchGraph({ ...base, upstream: '', defaultUpstream: '' }))).toBe(
      'NoUpstream: No updateService server has been set to retrieve updates.',
    );
    expect(await reason(fetchGraph({ ...base, upstream: 'not a url', clusterID: 'x' }))).toMatch(
      /^InvalidURI: failed to parse update service URL: /,
    );
    expect(await reason(fetchGraph({ ...base, clusterID: 'not-a-uuid', arch: '' }))).toBe(
      'InvalidID: invalid cluster ID: not-a-uuid',
    );
    expect(await reason(fetchGraph({ ...base, arch: '', version: undefined }))).toBe(
      'NoArchitecture: Architecture has not been configured.',
    );
    expect(await reason(fetchGraph({ ...base, version: undefined, channel: undefined }))).toBe(
      'NoCurrentVersion: The cluster version does not have a semantic version assigned and cannot calculate valid upgrades.',
    );
    expect(await reason(fetchGraph({ ...base, channel: undefined, version: 'v4.16' }))).toBe(
      'NoChannel: The update channel has not been configured.',
    );
    expect(await reason(fetchGraph({ ...base, version: '4.16' }))).toBe(
      'InvalidCurrentVersion: The current cluster version is not a valid semantic version and cannot be used to calculate upgrades.',
    );
    expect(await reason(fetchGraph(base))).toMatch(/^RemoteFailed: Unable to retrieve available updates: /);
  });

  it('reliability finding 7: one deadline for the whole fetch, and a cap on the answer size', async () => {
    // A server that trickles a byte every 200 ms, and one whose answer is 2 MiB.
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url!.startsWith('/slow')) {
        const timer = setInterval(() => res.write(' '), 200);
        res.on('close', () => clearInterval(timer));
      } else res.end(' '.repeat(2 * 1024 * 1024));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const input = {
      clusterID: '8f2c1f6e-3b0a-4c1e-9d4f-1a2b3c4d5e6f',
      arch: 'amd64',
      channel: 'stable-4.16',
      version: '4.16.3',
    };
    try {
      expect(await reason(fetchGraph({ ...input, upstream: `${base}/slow` }, { timeoutMs: 1500 }))).toBe(
        'RemoteFailed: Unable to retrieve available updates: no whole answer within 1500 ms',
      );
      expect(await reason(fetchGraph({ ...input, upstream: `${base}/big` }, { maxBytes: 1024 * 1024 }))).toBe(
        'RemoteFailed: Unable to retrieve available updates: the answer is larger than 1048576 bytes',
      );
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('answers ResponseFailed with the HTTP status, and sends the CVO request', async () => {
    let seen: { url?: string; accept?: string; ua?: string } = {};
    const server = createServer((req, res) => {
      seen = { url: req.url, accept: req.headers.accept, ua: req.headers['user-agent'] };
      res.writeHead(503).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/graph?keep=1`;
      expect(
        await reason(
          fetchGraph({
            upstream: url,
            clusterID: '8f2c1f6e-3b0a-4c1e-9d4f-1a2b3c4d5e6f',
            arch: 'amd64',
            channel: 'stable-4.16',
            version: '4.16.3',
          }),
        ),
      ).toBe('ResponseFailed: Unable to retrieve available updates: unexpected HTTP status: 503 Service Unavailable');
      expect(seen.url).toBe(
        '/graph?arch=amd64&channel=stable-4.16&id=8f2c1f6e-3b0a-4c1e-9d4f-1a2b3c4d5e6f&keep=1&version=4.16.3',
      );
      expect(seen.accept).toBe('application/json');
      expect(seen.ua).toMatch(/^ClusterVersionOperator\/4\.16\.3/);
    } finally {
      server.close();
    }
  });
});
