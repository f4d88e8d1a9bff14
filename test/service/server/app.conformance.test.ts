// Conformance over HTTP: a listening server fed each real public set answers every captured channel
// exactly as the public service did.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONFORMANCE_DIR,
  conformanceAvailable,
  expectedChannels,
  normalise,
  realSets,
} from '../../support/conformance.js';
import { startServer, type TestServer } from '../../support/server.js';

describe.runIf(conformanceAvailable())('conformance over HTTP', () => {
  for (const set of realSets()) {
    describe(set, () => {
      let server: TestServer;
      beforeAll(async () => {
        server = await startServer({ graphData: join(CONFORMANCE_DIR, set, 'graph-data') });
      });
      afterAll(() => server?.close());

      it('reproduces every captured channel', async () => {
        const expected = expectedChannels(set);
        const mismatches: string[] = [];
        for (const { channel, doc } of expected) {
          const res = await fetch(`${server.url}/api/upgrades_info/v1/graph?channel=${channel}&arch=amd64`, {
            headers: { accept: 'application/json' },
          });
          expect(res.status).toBe(200);
          const got = normalise((await res.json()) as Parameters<typeof normalise>[0]);
          const want = normalise(doc);
          const diffs = (Object.keys(want) as Array<keyof typeof want>).filter(
            (k) => JSON.stringify(got[k]) !== JSON.stringify(want[k]),
          );
          if (diffs.length)
            mismatches.push(`${channel}: ${diffs.map((k) => `${k} ${sample(got[k], want[k])}`).join('; ')}`);
        }
        console.log(`conformance: ${expected.length - mismatches.length}/${expected.length} channels exact (${set})`);
        expect(mismatches).toEqual([]);
      });
    });
  }
});

/** A few differing items of one view, for a readable failure. */
function sample(got: unknown, want: unknown): string {
  const entries = (v: unknown): Map<string, string> =>
    new Map(Object.entries(v as object).map(([k, x]) => [Array.isArray(v) ? String(x) : k, JSON.stringify(x)]));
  const g = entries(got);
  const w = entries(want);
  const extra = [...g]
    .filter(([k, v]) => w.get(k) !== v)
    .slice(0, 3)
    .map(([k, v]) => `+${k}=${v}`);
  const missing = [...w]
    .filter(([k, v]) => g.get(k) !== v)
    .slice(0, 3)
    .map(([k, v]) => `-${k}=${v}`);
  return [...extra, ...missing].join(' ');
}
