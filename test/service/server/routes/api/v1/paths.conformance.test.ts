// The risks of a conditional hop of /api/v1/paths, over HTTP, in the order the public service listed them
// for that edge (the order a cluster shows them in): checked for the pairs of the 2024-08-09 captures whose
// conditional edge has two risks or more, the 4.14.7 edges (whose order is not plain name order) among them.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_DIR, conformanceAvailable, expectedChannels } from '../../../../../support/conformance.js';
import { useCleanup } from '../../../../../support/cleanup.js';
import { startServer } from '../../../../../support/server.js';

const cleanup = useCleanup();
const CHANNELS = ['stable-4.14', 'candidate-4.16', 'stable-4.11'];

interface Hop {
  from: string;
  to: string;
  risks: Array<{ name: string }>;
}

describe.runIf(conformanceAvailable())('path hops name their risks in the served order', () => {
  it('lists each conditional hop’s risks as the public service listed them', async () => {
    // Thousands of questions from one address: far past serve's default planning budget, as an operator would allow.
    const graphData = join(CONFORMANCE_DIR, 'real-2024-08-09', 'graph-data');
    const server = await startServer({ graphData, planRateLimit: 1_000_000 });
    cleanup.add(() => server.close());
    let checked = 0;
    let notNameOrder = 0;
    for (const { channel, doc } of expectedChannels('real-2024-08-09').filter((c) => CHANNELS.includes(c.channel))) {
      const entries = (doc.conditionalEdges ?? []).filter((ce) => ce.risks.length > 1);
      for (const ce of entries) {
        const want = ce.risks.map((r) => r.name);
        for (const e of ce.edges.slice(0, 2)) {
          const url = `${server.url}/api/v1/paths?from=${e.from}&to=${e.to}&arch=amd64&channel=${channel}&acceptRisks=${want.join(',')}&limit=10`;
          const answer = (await (await fetch(url)).json()) as { paths: Array<{ hops: Hop[] }> };
          const hop = answer.paths.flatMap((p) => p.hops).find((h) => h.from === e.from && h.to === e.to);
          if (!hop) continue; // the planner found better paths that avoid this edge
          expect(
            hop.risks.map((r) => r.name),
            `${channel}: ${e.from} -> ${e.to}`,
          ).toEqual(want);
          checked += 1;
          if (want.join() !== [...want].sort().join()) notNameOrder += 1;
        }
      }
    }
    console.log(`paths: ${checked} conditional hops checked, ${notNameOrder} of them not in name order`);
    expect(checked).toBeGreaterThan(20);
    expect(notNameOrder).toBeGreaterThan(0);
  }, 120_000);
});
