// `cincy release ls`, `risk ls` and `audit`, run as processes against a server in this process on a
// full-size store (test/support/fullSizeServer.ts), follow nextCursor to show everything. The API's
// reads themselves are in test/service/app/admin/readModel.test.ts.
import { describe, expect, it } from 'vitest';
import { cincyAsync } from '../support/cli.js';
import {
  api,
  releaseKey,
  server,
  sortedReleases,
  stored,
  token,
  useFullSizeServer,
} from '../support/fullSizeServer.js';

useFullSizeServer();

// Each test reads thousands of items page by page from a full-size store, with graph rebuilds after
// each write: minutes are possible on a loaded machine.
describe('admin reads on a full-size store', { timeout: 240_000 }, () => {
  it('reliability finding 3: cincy release ls and risk ls follow nextCursor to show everything, audit --limit over one page', async () => {
    const env = { CINCY_SERVER: server.url, CINCY_TOKEN: token };
    const releases = await cincyAsync(['release', 'ls', '-o', 'json'], env);
    expect(releases.code, releases.stderr).toBe(0);
    expect((JSON.parse(releases.stdout) as Array<Record<string, unknown>>).map(releaseKey)).toEqual(
      await sortedReleases(),
    );
    const risks = await cincyAsync(['risk', 'ls', '-o', 'json'], env);
    expect(risks.code, risks.stderr).toBe(0);
    expect((JSON.parse(risks.stdout) as { risks: unknown[] }).risks).toHaveLength(
      (await stored((tx) => tx.blockedEdges.all())).length,
    );
    for (let i = 0; i < 3; i++) await api('PUT', `/api/v1/channels/cli-${i}`, { versions: [] });
    const audit = await cincyAsync(['audit', '--limit', '2', '-o', 'json'], env);
    expect(audit.code, audit.stderr).toBe(0);
    const entries = (JSON.parse(audit.stdout) as { entries: Array<{ target: string }> }).entries;
    expect(entries.map((e) => e.target)).toEqual(['public/cli-2', 'public/cli-1']);
    const bad = await cincyAsync(['audit', '--limit', '0'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--limit');
  });
});
