// The admin API's reads on a full-size store (the generator's --size full tree, ~6,000 releases, on a
// server in this process: test/support/fullSizeServer.ts) are answered from a read model made once per
// store generation, and every list is paginated: all pages together are the whole sorted set, once each,
// also when a write comes between two pages; a bad limit or cursor is a 400 naming it. (What a request
// costs is measured, not tested: see docs/design/writes-and-builds.md.) The command line's reads of it are
// in test/e2e/admin-read-model-cli.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Release } from '../../../../src/graph/model.js';
import {
  api,
  dir,
  expectOnceEach,
  inChannel,
  pages,
  releaseKey,
  server,
  sortedReleases,
  stored,
  useFullSizeServer,
} from '../../../support/fullSizeServer.js';

useFullSizeServer();

// Each test reads thousands of items page by page from a full-size store, with graph rebuilds after
// each write: minutes are possible on a loaded machine.
describe('admin reads on a full-size store', { timeout: 240_000 }, () => {
  it('reliability finding 3: answers every read of one generation from one read model, made again only after a write', async () => {
    const queries = server.admin.queries;
    await api('GET', '/api/v1/releases');
    const built = queries.modelBuilds;
    const reads = [
      '/api/v1/releases',
      '/api/v1/releases?arch=s390x&version=4.2*&limit=5',
      '/api/v1/releases?channel=candidate',
      '/api/v1/releases/amd64/4.20.1',
      '/api/v1/channels',
      '/api/v1/channels/eus-4.22',
      '/api/v1/internal-channels',
      '/api/v1/internal-channels/candidate',
      '/api/v1/risks',
    ];
    const hotfixes = async (): Promise<unknown[]> =>
      (await api('GET', '/api/v1/releases?version=4.20.1-hotfix.*')).body.releases as unknown[];
    for (let round = 0; round < 3; round++)
      for (const path of reads) expect((await api('GET', path)).status, path).toBe(200);
    expect(await hotfixes()).toEqual([]);
    expect(queries.modelBuilds).toBe(built);

    // A model already made is not changed by a write; the next read makes one model of the new state.
    const before = await queries.readModel();
    const releaseCount = before.releases.length;
    const record = JSON.parse(readFileSync(join(dir.path, 'graph-data/releases/amd64/4.20.1.json'), 'utf8')) as object;
    const added = {
      ...record,
      version: '4.20.1-hotfix.1',
      payload: `quay.example/ocp/release@sha256:${'7'.repeat(64)}`,
    };
    expect((await api('POST', '/api/v1/releases', added)).status).toBe(201);
    expect(queries.modelBuilds).toBe(built);
    for (const path of reads) expect((await api('GET', path)).status, path).toBe(200);
    const detail = await api('GET', '/api/v1/releases/amd64/4.20.1-hotfix.1');
    expect(detail.body.release).toMatchObject({ version: '4.20.1-hotfix.1' });
    expect(queries.modelBuilds).toBe(built + 1);
    expect(before.releases.length).toBe(releaseCount);
    expect((await queries.readModel()).releases.length).toBe(releaseCount + 1);
    // The same request as before the write answers the new state, not the answer kept for the old one.
    expect(await hotfixes()).toMatchObject([{ version: '4.20.1-hotfix.1' }]);
    expect((await api('DELETE', '/api/v1/releases/amd64/4.20.1-hotfix.1')).status).toBe(200);
    expect((await api('GET', '/api/v1/releases/amd64/4.20.1-hotfix.1')).status).toBe(404);
    expect(queries.modelBuilds).toBe(built + 2);
  });

  it('offers the closest channel for a mistyped one, on reads and writes', async () => {
    for (const [method, path, message] of [
      ['GET', '/api/v1/channels/eus-422', 'no public channel eus-422: did you mean eus-4.22?'],
      ['GET', '/api/v1/releases?channel=stabel-4.20', 'no channel stabel-4.20: did you mean stable-4.20?'],
      ['DELETE', '/api/v1/channels/fsat-4.20/versions/4.20.1', 'no public channel fsat-4.20: did you mean fast-4.20?'],
      ['GET', '/api/v1/channels/nightly-4.20', 'no public channel nightly-4.20'],
    ] as const) {
      const res = await api(method, path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).toEqual({ kind: 'does_not_exist', value: message });
    }
  });

  it('reliability finding 3: gives every list, page after page, as the whole sorted set with each item once', async () => {
    const releases = await pages('/api/v1/releases', 'releases', 1000);
    expect(releases.items.map(releaseKey)).toEqual(await sortedReleases());
    expect(releases.items.length).toBeGreaterThan(5000);
    expect(releases.pages).toBe(Math.ceil(releases.items.length / 1000));

    // Filters, alone and together; a version prefix (4.2*: 4.2.z and 4.20.z to 4.29.z) is not one run in semver order.
    const inFast = await inChannel('fast');
    const filtered: Array<[string, (r: Release) => boolean]> = [
      ['arch=arm64', (r) => r.arch === 'arm64'],
      ['version=4.2*', (r) => r.version.startsWith('4.2')],
      ['version=4.20.1', (r) => r.version === '4.20.1'],
      ['channel=eus-4.22', await inChannel('eus-4.22')],
      ['channel=candidate', await inChannel('candidate')],
      ['arch=multi&version=4.2*&channel=fast', (r) => r.arch === 'multi' && r.version.startsWith('4.2') && inFast(r)],
    ];
    for (const [query, keep] of filtered) {
      const expected = await sortedReleases(keep);
      expect(expected.length, query).toBeGreaterThan(0);
      const got = await pages(`/api/v1/releases?${query}`, 'releases', 397);
      expect(got.items.map(releaseKey), query).toEqual(expected);
    }

    for (const kind of ['public', 'internal'] as const) {
      const path = kind === 'public' ? '/api/v1/channels' : '/api/v1/internal-channels';
      const got = await pages(path, 'channels', 7);
      const all = await stored((tx) => tx.channels.all());
      const ofKind = all.filter((c) => (c.internal ? 'internal' : 'public') === kind);
      expect(got.items.map((c) => c.name)).toEqual(ofKind.map((c) => c.name).sort());
      for (const c of got.items)
        expect(c.versions).toEqual(await stored((tx) => tx.channels.members(kind, c.name as string)));
    }

    // A channel's versions, in the order they entered it (the internal candidate channel holds ~1,900).
    const candidate = await pages('/api/v1/internal-channels/candidate', 'versions', 250);
    expect(candidate.pages).toBeGreaterThan(5);
    expect(candidate.items).toEqual(await stored((tx) => tx.channels.members('internal', 'candidate')));

    const risks = await pages('/api/v1/risks', 'risks', 300);
    const storedRisks = (await stored((tx) => tx.blockedEdges.all())).sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(risks.items.length).toBeGreaterThan(1000);
    expect(risks.items).toEqual(storedRisks);

    for (let i = 0; i < 5; i++)
      expect((await api('PUT', `/api/v1/channels/audit-${i}`, { versions: ['4.20.1'] })).status).toBe(201);
    const audit = await pages('/api/v1/audit', 'entries', 2);
    const storedAudit = await stored((tx) => tx.audit.list({ limit: 1_000_000 }));
    expect(audit.items.map((e) => e.id)).toEqual(storedAudit.map((e) => e.id));
    expect(audit.pages).toBe(Math.ceil(storedAudit.length / 2));
    const pats = await pages('/api/v1/audit?actor=pat', 'entries', 3);
    const storedPats = await stored((tx) => tx.audit.list({ actor: 'pat', limit: 1_000_000 }));
    expect(pats.items.map((e) => e.id)).toEqual(storedPats.map((e) => e.id));
    expect(pats.items.slice(0, 5).map((e) => e.target)).toEqual([4, 3, 2, 1, 0].map((i) => `public/audit-${i}`));
  });

  it('reliability finding 3: a write between two pages neither repeats an item nor skips one that was there all along', async () => {
    const record = JSON.parse(readFileSync(join(dir.path, 'graph-data/releases/amd64/4.20.1.json'), 'utf8')) as object;
    const at = (version: string, n: number): object => ({
      ...record,
      version,
      payload: `quay.example/ocp/release@sha256:${String(n).repeat(64)}`,
    });
    // Between the first and second page of each list: an item that sorts before the cursor and one
    // after it are added, and an item a later page would have shown is removed. The pages give what
    // was there all along once each, the item added after the cursor, and neither of the others.
    const before = await sortedReleases();
    const gone = before[3000]!;
    const [goneVersion, goneArch] = gone.split('+') as [string, string];
    const releases = await pages('/api/v1/releases', 'releases', 1000, async () => {
      expect((await api('POST', '/api/v1/releases', [at('4.1.0-early.1', 1), at('4.99.0', 2)])).status).toBe(201);
      expect((await api('DELETE', `/api/v1/releases/${goneArch}/${goneVersion}`)).status).toBe(200);
    });
    const keys = releases.items.map(releaseKey);
    expectOnceEach(keys);
    expect(keys.slice(0, 1000)).toEqual(before.slice(0, 1000));
    expect(keys).toEqual((await sortedReleases()).filter((k) => k !== '4.1.0-early.1+amd64'));
    expect(keys).toContain('4.99.0+amd64');
    expect(keys).not.toContain(gone);

    const risk = (id: string): object => ({
      id,
      to: '4.99.0',
      from: '4[.]20[.].*',
      url: 'https://issues.example/1',
      name: 'Paged',
      message: 'A risk added between two pages.',
      matchingRules: [{ type: 'Always' }],
    });
    const riskIds = (await stored((tx) => tx.blockedEdges.all())).map((e) => e.id).sort();
    const goneRisk = riskIds[1200]!;
    const risks = await pages('/api/v1/risks', 'risks', 500, async () => {
      for (const id of ['0-before-every-risk', 'zz-after-every-risk'])
        expect((await api('POST', '/api/v1/risks', risk(id))).status).toBe(201);
      expect((await api('DELETE', `/api/v1/risks/${goneRisk}`)).status).toBe(200);
    });
    const ids = risks.items.map((e) => e.id as string);
    expectOnceEach(ids);
    expect(ids).toEqual([...riskIds.filter((id) => id !== goneRisk), 'zz-after-every-risk']);

    // A channel's versions: one withdrawn ahead of the cursor, one promoted (it goes to the end).
    const members = (await stored((tx) => tx.channels.members('internal', 'candidate'))).map((m) => m.version);
    const withdrawn = members[1200]!;
    const candidate = await pages('/api/v1/internal-channels/candidate', 'versions', 500, async () => {
      expect((await api('DELETE', `/api/v1/internal-channels/candidate/versions/${withdrawn}`)).status).toBe(200);
      expect((await api('POST', '/api/v1/internal-channels/candidate/versions', { version: '4.99.0' })).status).toBe(
        201,
      );
    });
    const versions = candidate.items.map((v) => v.version as string);
    expectOnceEach(versions);
    expect(versions).toEqual([...members.filter((v) => v !== withdrawn), '4.99.0']);

    // A channel naming one arch's release (version+arch) filters that release only.
    expect((await api('PUT', '/api/v1/channels/one-arch', { versions: ['4.20.1+s390x', '4.20.2'] })).status).toBe(201);
    const oneArch = (await pages('/api/v1/releases?channel=one-arch', 'releases', 2)).items.map(releaseKey);
    expect(oneArch).toEqual(await sortedReleases(await inChannel('one-arch')));
    expect(oneArch).toContain('4.20.1+s390x');
    expect(oneArch).not.toContain('4.20.1+amd64');
  });

  it('reliability finding 3: answers a bad limit or cursor with 400 naming it', async () => {
    const riskCursor = (await api('GET', '/api/v1/risks?limit=1')).body.nextCursor!;
    const versionsCursor = (await api('GET', '/api/v1/internal-channels/candidate?limit=1')).body.nextCursor!;
    const cases: Array<[string, string]> = [
      ['/api/v1/releases?limit=0', 'limit'],
      ['/api/v1/releases?limit=1001', 'limit'],
      ['/api/v1/channels?limit=ten', 'limit'],
      ['/api/v1/risks?limit=-1', 'limit'],
      ['/api/v1/audit?limit=1.5', 'limit'],
      ['/api/v1/internal-channels/fast?limit=0', 'limit'],
      ['/api/v1/releases?cursor=garbage', 'cursor'],
      [`/api/v1/releases?cursor=${riskCursor}`, 'cursor'],
      [`/api/v1/channels?cursor=${riskCursor}`, 'cursor'],
      [`/api/v1/internal-channels?cursor=${riskCursor}`, 'cursor'],
      [`/api/v1/audit?cursor=${riskCursor}`, 'cursor'],
      // Not an entry's id: a fraction, past what a four-byte id holds, below 1.
      ...['1.5', '1e10', '0'].map((id): [string, string] => [
        `/api/v1/audit?cursor=${Buffer.from(`["audit",${id}]`).toString('base64url')}`,
        'cursor',
      ]),
      [`/api/v1/internal-channels/fast?cursor=${versionsCursor}`, 'cursor'],
      [`/api/v1/risks?cursor=${'x'.repeat(600)}`, 'cursor'],
      [
        `/api/v1/releases?cursor=${Buffer.from('["releases","not a version","amd64"]').toString('base64url')}`,
        'cursor',
      ],
    ];
    for (const [path, parameter] of cases) {
      const r = await api('GET', path);
      expect(r.status, path).toBe(400);
      expect(r.body.kind, path).toBe('invalid_request');
      expect(r.body.value, path).toContain(parameter);
    }
  });
});
