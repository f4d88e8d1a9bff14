// The admin API over HTTP, the tests of `on <engine>`: the release lifecycle up the promotion ladder with
// an injected clock, dry runs (also under --require-signatures), export round trip, automatic promotion,
// and concurrent writes with readers that only ever see consistent graphs. The ladder server's store is
// SQLite in memory in the service tier (test/service/app/admin/services.test.ts), or a PostgreSQL database of its
// own in the e2e tier (test/e2e/admin-api-postgres.test.ts).
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readGraphData } from '../../src/sources/graphData.js';
import { generateKeys } from '../../src/cli/signing.js';
import { signPayload } from './signing.js';
import { TrustStore } from '../../src/signatures/verify.js';
import {
  api,
  clock,
  DAY,
  dirs,
  graph,
  payloadOf,
  rec,
  secretFile,
  server,
  stateHash,
  tokens,
  useLadderServer,
  versions,
  WITHOUT_DEFAULT_FILES,
} from './adminServer.js';
import { startServer, tempDir } from './server.js';
import { writeTree } from './trees.js';

/** Registers the tests in the describe that calls it; `database` gives the store of each ladder server (default: SQLite in memory). */
export function adminApi(database?: () => Promise<string>): void {
  useLadderServer(database);

  describe('release lifecycle', () => {
    it('flows from candidate to fast, stable and eus following the feeders, with delay, errata and tombstones enforced', async () => {
      const promote = (kind: 'channels' | 'internal-channels', name: string, version: string, extra: object = {}) =>
        api('POST', `/api/v1/${kind}/${name}/versions`, { version, ...extra });
      // A public channel fed from internal fast refuses a version that is not there yet.
      let r = await promote('channels', 'fast-4.16', '4.16.1');
      expect(r.status).toBe(409);
      expect(r.body.value).toMatch(/^feeder.source: 4.16.1 is not in fast/);

      expect((await promote('internal-channels', 'candidate', '4.16.1')).status).toBe(201);
      expect((await promote('internal-channels', 'candidate', '4.16.2')).status).toBe(201);
      // fast takes a version with a public errata at once; 4.16.2 has none and fast has no delay.
      expect((await promote('internal-channels', 'fast', '4.16.1')).status).toBe(201);
      r = await promote('internal-channels', 'fast', '4.16.2');
      expect(r.status).toBe(409);
      expect(r.body.value).toMatch(/^feeder.errata: /);

      expect((await promote('channels', 'fast-4.16', '4.16.1')).status).toBe(201);
      expect(await versions('fast-4.16')).toEqual(['4.15.1', '4.16.1']);

      // stable waits a week after fast.
      r = await promote('internal-channels', 'stable', '4.16.1');
      expect(r.status).toBe(409);
      expect(r.body.value).toMatch(
        /^feeder.delay: 4.16.1 entered fast at 2026-01-01T00:00:00.000Z; the feeder delay P1W of stable ends at 2026-01-08T00:00:00.000Z/,
      );
      clock.advance(7 * DAY);
      expect((await promote('internal-channels', 'stable', '4.16.1')).status).toBe(201);
      expect((await promote('channels', 'stable-4.16', '4.16.1')).status).toBe(201);

      // eus-4.16 waits 48 hours after stable, and its filter spans three minors.
      expect((await promote('channels', 'eus-4.16', '4.16.1')).status).toBe(409);
      clock.advance(2 * DAY);
      expect((await promote('channels', 'eus-4.16', '4.16.1')).status).toBe(201);
      expect(await versions('eus-4.16')).toEqual(['4.14.1', '4.15.1', '4.16.1']);

      // The filter keeps 4.14 out of stable-4.16; the tombstone keeps 4.16.3 out, unless forced with a reason.
      r = await promote('channels', 'stable-4.16', '4.14.1');
      expect(r.body.value).toMatch(/^feeder.filter: 4.14.1 does not match the feeder filter/);
      r = await promote('channels', 'stable-4.16', '4.16.3');
      expect(r.status).toBe(409);
      expect(r.body.value).toMatch(/^tombstone: /);
      expect((await promote('channels', 'stable-4.16', '4.16.3', { force: true })).status).toBe(400);
      r = await promote('channels', 'stable-4.16', '4.16.3', { force: true, reason: 'hotfix for a customer' });
      expect(r.status).toBe(201);
      expect(r.body.forced).toBe(true);

      // The same promotion again is a no-op.
      r = await promote('channels', 'stable-4.16', '4.16.1');
      expect(r.status).toBe(200);
      expect(r.body.changed).toBe(false);

      const g = await graph('stable-4.16');
      expect(g.nodes.map((n) => n.version)).toEqual(['4.15.1', '4.16.1', '4.16.3']);
      expect(g.nodes[1]!.metadata['io.openshift.upgrades.graph.release.channels']).toBe(
        'eus-4.16,fast-4.16,stable-4.16',
      );

      const audit = await api('GET', '/api/v1/audit?limit=3');
      const entries = audit.body.entries as Array<{
        actor: string;
        action: string;
        reason: string | null;
        after: { bypassed?: { rule: string } };
      }>;
      expect(entries[0]).toMatchObject({
        actor: 'alice',
        action: 'channel.promote.forced',
        reason: 'hotfix for a customer',
      });
      expect(entries[0]!.after.bypassed!.rule).toBe('tombstone');
    });

    it('withdraws a version (tombstoning it there), declares and withdraws risks, and the graph follows', async () => {
      let r = await api('DELETE', '/api/v1/channels/stable-4.14/versions/4.14.1?reason=bad');
      expect(r.status).toBe(200);
      expect(await versions('stable-4.14')).toEqual([]);
      r = await api('POST', '/api/v1/channels/stable-4.14/versions', { version: '4.14.1' });
      expect(r.status).toBe(409);
      expect(r.body.value).toMatch(/^tombstone/);

      r = await api('POST', '/api/v1/risks', {
        to: '4.16.1',
        from: '4[.]15[.].*',
        url: 'https://issues.example/1',
        name: 'Boom',
        message: 'It breaks.',
        matchingRules: [{ type: 'PromQL', promql: { promql: 'group(cluster_version)' } }],
      });
      expect(r.status).toBe(201);
      expect(r.body.id).toBe('4.16.1-Boom');
      await api('POST', '/api/v1/internal-channels/candidate/versions', { version: '4.16.1' });
      await api('POST', '/api/v1/internal-channels/fast/versions', { version: '4.16.1' });
      await api('POST', '/api/v1/channels/fast-4.16/versions', { version: '4.16.1' });
      let g = await graph('fast-4.16');
      expect(g.edges).toEqual([]);
      expect(g.conditionalEdges[0]!.edges).toEqual([{ from: '4.15.1', to: '4.16.1' }]);
      expect(
        (
          await api('POST', '/api/v1/risks', {
            to: '4.16.1',
            from: '.*',
            name: 'Boom',
            url: 'https://x.example/',
            message: 'm',
            matchingRules: [{ type: 'Always' }],
          })
        ).status,
      ).toBe(409);

      expect((await api('DELETE', '/api/v1/risks/4.16.1-Boom?reason=fixed')).status).toBe(200);
      g = await graph('fast-4.16');
      expect(g.edges).toEqual([[0, 1]]);
      expect(g.conditionalEdges).toEqual([]);
    });

    it('adds releases idempotently and refuses another payload for the same release', async () => {
      const record = JSON.parse(rec('4.16.4', ['4.16.3'])) as Record<string, unknown>;
      expect((await api('POST', '/api/v1/releases', record)).status).toBe(201);
      const snapshot = server.service.current;
      expect((await api('POST', '/api/v1/releases', record)).status).toBe(200);
      expect(server.service.current).toBe(snapshot); // nothing changed, nothing rebuilt
      const other = { ...record, payload: `quay.example/ocp/release@sha256:${'f'.repeat(64)}` };
      const r = await api('POST', '/api/v1/releases', [JSON.parse(rec('4.16.5', [], '', 99)), other]);
      expect(r.status).toBe(409);
      expect((await api('GET', '/api/v1/releases/amd64/4.16.5')).status).toBe(404); // all or nothing
      const one = await api('GET', '/api/v1/releases/amd64/4.16.1');
      expect(one.body.channels).toEqual([]);
      expect((one.body.release as { payload: string }).payload).toMatch(/@sha256:/);
      expect((await api('DELETE', '/api/v1/releases/amd64/4.16.4')).status).toBe(200);
      expect((await api('GET', '/api/v1/releases/amd64/4.16.4')).status).toBe(404);
    });

    it('paginates the release list with a cursor, in semver order', async () => {
      const seen: string[] = [];
      let cursor = '';
      for (let i = 0; i < 10; i++) {
        const r = await api('GET', `/api/v1/releases?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...(r.body.releases as Array<{ version: string }>).map((x) => x.version));
        if (!r.body.nextCursor) break;
        cursor = r.body.nextCursor as string;
      }
      expect(seen).toEqual(['4.14.1', '4.15.1', '4.16.1', '4.16.2', '4.16.3']);
      expect((await api('GET', '/api/v1/releases?channel=eus-4.16')).body.releases).toHaveLength(2);
      expect((await api('GET', '/api/v1/releases?cursor=garbage')).status).toBe(400);
    });

    it('dry-run lists the edges that would appear and changes nothing', async () => {
      await api('POST', '/api/v1/internal-channels/candidate/versions', { version: '4.16.1' });
      await api('POST', '/api/v1/internal-channels/fast/versions', { version: '4.16.1' });
      const before = await stateHash();
      const auditBefore = (await api('GET', '/api/v1/audit')).body.entries;
      const r = await api('POST', '/api/v1/channels/fast-4.16/versions?dryRun=true', { version: '4.16.1' });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        dryRun: true,
        changed: true,
        edges: [{ arch: 'amd64', from: '4.15.1', to: '4.16.1' }],
        conditionalEdges: [],
      });
      const refused = await api('POST', '/api/v1/channels/stable-4.16/versions?dryRun=true', { version: '4.16.1' });
      expect(refused.body).toMatchObject({ changed: false, refusal: { rule: 'feeder.source' } });
      expect(await versions('fast-4.16')).toEqual(['4.15.1']);
      expect((await api('GET', '/api/v1/audit')).body.entries).toEqual(auditBefore);
      expect(await stateHash()).toBe(before);
    });
  });

  describe('dry runs under --require-signatures', () => {
    it('report no edge to a release whose payload has no trusted signature, and the edges of a signed one', async () => {
      const d = tempDir();
      dirs.push(d);
      const keys = await generateKeys({ alg: 'EdDSA', kid: 'k1', out: join(d.path, 'keys') });
      const trustDir = join(d.path, 'trust');
      mkdirSync(trustDir);
      copyFileSync(keys.jwksFile, join(trustDir, 'k1.json'));
      const tree = writeTree(join(d.path, 'tree'), {
        ...WITHOUT_DEFAULT_FILES,
        'releases/amd64/4.15.1.json': rec('4.15.1', []),
        'releases/amd64/4.16.1.json': rec('4.16.1', ['4.15.1']),
        'releases/amd64/4.16.2.json': rec('4.16.2', ['4.15.1']),
        // 4.15.1 and 4.16.2 are signed next to their records; 4.16.1 is not.
        'releases/amd64/4.15.1.signature-1': await signPayload(keys.privateFile, payloadOf(4151)),
        'releases/amd64/4.16.2.signature-1': await signPayload(keys.privateFile, payloadOf(4162)),
        'channels/fast-4.16.yaml': 'name: fast-4.16\nversions: [4.15.1]\n',
      });
      const s = await startServer({
        graphData: tree,
        auth: { secretFile, rateLimit: 1000 },
        clock,
        trust: await TrustStore.load(trustDir),
        requireSignatures: true,
      });
      try {
        const dryRun = async (version: string): Promise<Record<string, unknown>> => {
          const res = await fetch(`${s.url}/api/v1/channels/fast-4.16/versions?dryRun=true`, {
            method: 'POST',
            headers: { authorization: `Bearer ${tokens.all}`, 'content-type': 'application/json' },
            body: JSON.stringify({ version }),
          });
          expect(res.status).toBe(200);
          return (await res.json()) as Record<string, unknown>;
        };
        expect(await dryRun('4.16.1')).toMatchObject({ dryRun: true, changed: true, edges: [], conditionalEdges: [] });
        expect(await dryRun('4.16.2')).toMatchObject({
          dryRun: true,
          changed: true,
          edges: [{ arch: 'amd64', from: '4.15.1', to: '4.16.2' }],
          conditionalEdges: [],
        });
      } finally {
        await s.close();
      }
    });
  });

  describe('graph-data tarball', () => {
    it('serves the current state as a tar.gz that imports back to the same graph', async () => {
      await api('POST', '/api/v1/risks', {
        to: '4.16.1',
        from: '.*',
        url: 'https://issues.example/2',
        name: 'R',
        message: 'm',
        matchingRules: [{ type: 'Always' }],
      });
      const res = await fetch(`${server.url}/api/upgrades_info/graph-data`);
      expect(res.headers.get('content-type')).toBe('application/gzip');
      const d = tempDir();
      dirs.push(d);
      const file = join(d.path, 'gd.tar.gz');
      writeFileSync(file, Buffer.from(await res.arrayBuffer()));
      const read = await readGraphData(file);
      expect(read.errors).toEqual([]);
      const copy = await startServer({ graphData: file });
      try {
        for (const c of ['fast-4.16', 'stable-4.16', 'eus-4.16', 'stable-4.14']) {
          const a = await (await fetch(`${server.url}/graph?channel=${c}`)).text();
          const b = await (await fetch(`${copy.url}/graph?channel=${c}`)).text();
          expect(b, c).toBe(a);
        }
        expect(
          read
            .tree!.channels.filter((c) => c.internal)
            .map((c) => c.name)
            .sort(),
        ).toEqual(['candidate', 'fast', 'stable']);
      } finally {
        await copy.close();
      }
    });
  });

  describe('automatic promotion', () => {
    it('applies every feeder, internal first, never re-adding a tombstoned version, audited as feeder', async () => {
      await api('POST', '/api/v1/internal-channels/candidate/versions', { version: '4.16.1' });
      await api('POST', '/api/v1/internal-channels/candidate/versions', { version: '4.16.3' });
      let done = await server.admin.feeders.autoPromote();
      expect(done.map((d) => `${d.kind}/${d.channel}:${d.version}`)).toEqual([
        'internal/fast:4.16.1',
        'internal/fast:4.16.3',
        'public/fast-4.16:4.16.1',
        'public/fast-4.16:4.16.3',
      ]);
      clock.advance(9 * DAY);
      done = await server.admin.feeders.autoPromote();
      expect(done.map((d) => `${d.kind}/${d.channel}:${d.version}`)).toEqual([
        'internal/stable:4.16.1',
        'internal/stable:4.16.3',
        'public/stable-4.16:4.16.1',
      ]);
      clock.advance(2 * DAY);
      done = await server.admin.feeders.autoPromote();
      expect(done.map((d) => `${d.kind}/${d.channel}:${d.version}`)).toEqual([
        'public/eus-4.16:4.16.1',
        'public/eus-4.16:4.16.3',
      ]);
      expect(await server.admin.feeders.autoPromote()).toEqual([]);
      expect(await versions('stable-4.16')).toEqual(['4.15.1', '4.16.1']); // 4.16.3 is tombstoned there
      const audit = (await api('GET', '/api/v1/audit?actor=feeder&limit=100')).body.entries as unknown[];
      expect(audit).toHaveLength(9);
    });
  });

  describe('consistency', () => {
    it('serves only whole graphs while writes run in parallel, and parallel promotions of one version end in one change', async () => {
      const { body } = await api('GET', '/api/v1/releases?limit=1000', undefined, undefined);
      expect((body.releases as unknown[]).length).toBe(5);
      const writers = Array.from({ length: 20 }, (_, i) =>
        api('PUT', '/api/v1/channels/stable-4.14', { versions: i % 2 ? ['4.14.1', '4.15.1', '4.16.1'] : ['4.14.1'] }),
      );
      const readers = Array.from({ length: 60 }, async () => {
        const g = await graph('stable-4.14');
        const names = g.nodes.map((n) => n.version).join(',');
        expect(['4.14.1', '4.14.1,4.15.1,4.16.1']).toContain(names);
        for (const [a, b] of g.edges) expect(g.nodes[a] && g.nodes[b]).toBeTruthy();
      });
      const results = await Promise.all(writers);
      await Promise.all(readers);
      expect(results.every((r) => r.status === 200 || r.status === 201)).toBe(true);
      const same = await Promise.all(
        Array.from({ length: 5 }, () =>
          api('POST', '/api/v1/internal-channels/candidate/versions', { version: '4.16.2' }),
        ),
      );
      expect(same.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
    });
  });
}
