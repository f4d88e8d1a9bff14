// A phased rollout as an administrator and a fleet live it: two `cincy serve` replicas on one PostgreSQL,
// the rollout declared with `cincy rollout declare` as a shell runs it, and 1,000 simulated clusters
// polling either replica over the window. At each checkpoint the share of clusters offered the edge is
// the elapsed share of the window within 3%, no cluster loses the edge once offered, the canaries have it
// from the start, and both replicas serve every cluster the same bytes (the ETag is a hash of them).
/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are read as JSON, checked field by field */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { offeredAt, type Rollout } from '../../src/graph/rollouts.js';
import { BUNDLED_GRAPH_DATA } from '../../src/settings.js';
import { cincyAsync, serveCli, useCleanup } from '../support/cli.js';
import { usePostgres } from '../support/postgres.js';

const cleanup = useCleanup();
const postgres = usePostgres();

const CHANNEL = 'stable-4.16';
const FROM = '4.16.21';
const TO = '4.16.22';
const WINDOW_MS = 40_000;
const CLUSTERS = 1000;
const uuid = (n: number): string => `c0ffee00-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const ids = Array.from({ length: CLUSTERS }, (_, n) => uuid(n));
const canaries = [ids[7]!, ids[500]!];
const sleepUntil = (t: number) => new Promise((r) => setTimeout(r, Math.max(0, t - Date.now())));

const graphUrl = (base: string, id?: string) =>
  `${base}/api/upgrades_info/v1/graph?channel=${CHANNEL}&arch=amd64&version=${FROM}${id ? `&id=${id}` : ''}`;

/** The ETag each cluster is served by HEAD, `concurrency` at a time, with the moments the round spans. */
async function round(
  urlOf: (n: number) => string,
): Promise<{ tags: string[]; answeredAt: number[]; from: number; to: number }> {
  const tags: string[] = new Array(CLUSTERS);
  const answeredAt: number[] = new Array(CLUSTERS);
  const from = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      for (let n = next++; n < CLUSTERS; n = next++) {
        const res = await fetch(urlOf(n), { method: 'HEAD', headers: { accept: 'application/json' } });
        expect(res.status).toBe(200);
        tags[n] = res.headers.get('etag')!;
        answeredAt[n] = Date.now();
      }
    }),
  );
  return { tags, answeredAt, from, to: Date.now() };
}

/** Whether the view has the edge FROM → TO, and the node TO. */
async function viewOf(url: string): Promise<{ etag: string; edge: boolean; node: boolean }> {
  const res = await fetch(url, { headers: { accept: 'application/json' } });
  const doc = (await res.json()) as any;
  const names = doc.nodes.map((n: any) => n.version);
  const edge = doc.edges.some(([f, t]: [number, number]) => names[f] === FROM && names[t] === TO);
  return { etag: res.headers.get('etag')!, edge, node: names.includes(TO) };
}

describe.skipIf(!postgres.available)(
  'a phased rollout over two replicas and 1,000 clusters',
  { timeout: 180_000 },
  () => {
    it('offers the edge to the elapsed share, keeps it, canaries first, and both replicas agree', async () => {
      const secret = join(cleanup.dir(), 'secret');
      writeFileSync(secret, 'an-admin-secret-of-more-than-thirty-two-bytes\n');
      const db = await postgres.database();
      const args = ['--db', db, '--graph-data', BUNDLED_GRAPH_DATA, '--admin-jwt-secret-file', secret];
      const a = await serveCli(args, cleanup);
      const b = await serveCli(args, cleanup);
      const plain = await viewOf(graphUrl(a.url, ids[0]));
      expect(plain.edge).toBe(true);
      const token = (
        await cincyAsync(['token', 'create', '--admin-jwt-secret-file', secret, '--scope', 'rollouts:write'])
      ).stdout.trim();

      const start = Date.now() + 4000;
      const declared = await cincyAsync(
        [
          ...['rollout', 'declare', '--channel', CHANNEL, '--to', TO, '--from', '^4[.]16[.]'],
          ...['--start', new Date(start).toISOString(), '--duration', `PT${WINDOW_MS / 1000}S`],
          ...canaries.flatMap((c) => ['--canary', c]),
          ...['--reason', 'the 4.16.22 rollout', '-o', 'json'],
        ],
        { CINCY_SERVER: a.url, CINCY_TOKEN: token },
      );
      expect(declared.code, declared.stderr).toBe(0);
      const rollout = JSON.parse(declared.stdout) as any;
      expect(rollout).toMatchObject({ channel: CHANNEL, to: TO, phase: 'scheduled', canaries: 2 });
      const timing = { to: TO, start, durationMs: WINDOW_MS, canaries } as Pick<
        Rollout,
        'to' | 'start' | 'durationMs' | 'canaries'
      >;

      // Both replicas serve it (the other one from the store, noticed): before the start, no one has the edge.
      let withheld = '';
      for (const base of [a.url, b.url]) {
        for (let i = 0; i < 100; i++) {
          const v = await viewOf(graphUrl(base, canaries[0]));
          if (!v.edge) {
            expect(v.node).toBe(true);
            withheld ||= v.etag;
            expect(v.etag).toBe(withheld);
            break;
          }
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      expect(withheld, 'both replicas withhold the edge before the start').not.toBe('');
      const before = await round((n) => graphUrl(n % 2 ? a.url : b.url, ids[n]));
      expect(before.from).toBeLessThan(start);
      // A round on a loaded machine may end after the start: a cluster answered by then may have the edge,
      // and only if its place is due.
      before.tags.forEach((tag, n) => {
        if (before.answeredAt[n]! < start) expect(tag, ids[n]).toBe(withheld);
        else if (tag !== withheld) {
          expect(tag, ids[n]).toBe(plain.etag);
          expect(offeredAt(timing, ids[n]!), ids[n]).toBeLessThanOrEqual(before.answeredAt[n]!);
        }
      });

      // Checkpoints over the window; each cluster asks one replica, the other at the next checkpoint.
      await sleepUntil(start + 300);
      const canary = await viewOf(graphUrl(b.url, canaries[1]));
      expect(canary.edge).toBe(true);
      expect(canary.etag).toBe(plain.etag);
      const offeredOnce = new Set<number>();
      const shares: Array<{ elapsed: number; offered: number }> = [];
      for (const [k, at] of [0.01, 0.25, 0.5, 0.75].entries()) {
        await sleepUntil(start + at * WINDOW_MS);
        const r = await round((n) => graphUrl((n + k) % 2 ? a.url : b.url, ids[n]));
        let offered = 0;
        r.tags.forEach((tag, n) => {
          expect([plain.etag, withheld], ids[n]).toContain(tag);
          const has = tag === plain.etag;
          const due = offeredAt(timing, ids[n]);
          // Exact for every cluster whose turn is not inside the round itself.
          if (due < r.from) expect(has, `${ids[n]} offered at ${due}`).toBe(true);
          if (due > r.to) expect(has, `${ids[n]} not yet: ${due}`).toBe(false);
          if (offeredOnce.has(n)) expect(has, `${ids[n]} keeps the edge`).toBe(true);
          if (has) {
            offered += 1;
            offeredOnce.add(n);
          }
        });
        for (const c of canaries) expect(r.tags[ids.indexOf(c)]).toBe(plain.etag);
        const elapsed = ((r.from + r.to) / 2 - start) / WINDOW_MS;
        shares.push({ elapsed, offered: offered / CLUSTERS });
        expect(Math.abs(offered / CLUSTERS - elapsed), `checkpoint ${at}`).toBeLessThanOrEqual(0.03);
      }
      console.log(
        `rollout checkpoints (elapsed share → share offered): ${shares.map((s) => `${s.elapsed.toFixed(3)}→${s.offered.toFixed(3)}`).join(', ')}`,
      );

      // The same cluster, the same answer from either replica.
      const [ra, rb] = [await round((n) => graphUrl(a.url, ids[n])), await round((n) => graphUrl(b.url, ids[n]))];
      ra.tags.forEach((tag, n) => {
        const due = offeredAt(timing, ids[n]);
        if (due < ra.from || due > rb.to) expect(rb.tags[n], ids[n]).toBe(tag);
      });

      // After the window: every cluster, and a request without an id, is served the plain view.
      await sleepUntil(start + WINDOW_MS + 200);
      const after = await round((n) => graphUrl(n % 2 ? a.url : b.url, ids[n]));
      expect(new Set(after.tags)).toEqual(new Set([plain.etag]));
      expect((await viewOf(graphUrl(a.url))).etag).toBe(plain.etag);
      const listed = await cincyAsync(['rollout', 'ls', '-o', 'json'], { CINCY_SERVER: b.url });
      expect(JSON.parse(listed.stdout).rollouts[0]).toMatchObject({ id: rollout.id, phase: 'watching', share: 1 });
      const metrics = await (await fetch(`${b.url}/metrics`)).text();
      expect(metrics).toContain(`cincy_phased_update_rollout{channel="${CHANNEL}",from="^4[.]16[.]",to="${TO}"} 1`);
    });
  },
);
