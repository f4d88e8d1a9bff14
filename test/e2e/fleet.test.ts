// The fleet as a user sees it: `cincy serve` processes recording the polls of clusters that ask over
// real HTTP, read back with `cincy fleet` as a shell runs it. On PostgreSQL, two replicas each take
// part of the polls and either one answers for the whole fleet; --no-fleet records nothing.
/* eslint-disable @typescript-eslint/no-explicit-any -- the CLI's JSON is read field by field */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLED_GRAPH_DATA } from '../../src/settings.js';
import { cincyAsync, serveCli, useCleanup, type Served } from '../support/cli.js';
import { usePostgres } from '../support/postgres.js';
import { until } from '../support/processes.js';

const cleanup = useCleanup();
const postgres = usePostgres();

const uuid = (n: number): string => `c0ffee00-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** An admin secret file the servers verify tokens with. */
function secretFile(): string {
  const secret = join(cleanup.dir(), 'secret');
  writeFileSync(secret, 'an-admin-secret-of-more-than-thirty-two-bytes\n');
  return secret;
}

async function tokenFor(secret: string): Promise<string> {
  const r = await cincyAsync(['token', 'create', '--admin-jwt-secret-file', secret, '--scope', 'fleet:read']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

async function pollAs(url: string, n: number, version: string, channel = 'stable-4.16'): Promise<void> {
  const res = await fetch(
    `${url}/api/upgrades_info/v1/graph?arch=amd64&channel=${channel}&id=${uuid(n)}&version=${version}`,
    {
      headers: { accept: 'application/json' },
    },
  );
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

async function fleetJson(url: string, token: string, args: string[] = []): Promise<any> {
  const r = await cincyAsync(['fleet', ...args, '-o', 'json'], { CINCY_SERVER: url, CINCY_TOKEN: token });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe('the fleet of a cincy serve process, read with cincy fleet', { timeout: 120_000 }, () => {
  it('records the clusters that poll, their updates, and the stranded, and prints them', async () => {
    const secret = secretFile();
    const db = join(cleanup.dir(), 'cincy.db');
    const serve = (): Promise<Served> =>
      serveCli(
        [
          '--db',
          db,
          '--graph-data',
          BUNDLED_GRAPH_DATA,
          '--admin-jwt-secret-file',
          secret,
          '--fleet-flush-interval',
          '1s',
        ],
        cleanup,
      );
    let server = await serve();
    const token = await tokenFor(secret);
    for (let n = 0; n < 60; n++) await pollAs(server.url, n, '4.16.1');
    for (let n = 60; n < 70; n++) await pollAs(server.url, n, '4.99.1'); // a version the channel lacks
    await until('the polls flushed', async () => (await fleetJson(server.url, token)).clusters === 70 || undefined);
    for (let n = 0; n < 20; n++) await pollAs(server.url, n, '4.16.2');

    // A restart (SIGTERM) writes the polls it holds before it exits; the store keeps them.
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
    server = await serve();

    const summary = await fleetJson(server.url, token);
    expect(summary).toMatchObject({ clusters: 70, stranded: 10, recording: true });
    // In version order; 4.99.1 is no release of the graph: recorded as one name for every such version, last.
    expect(summary.groups.map((g: any) => [g.version, g.clusters, g.stranded ?? null])).toEqual([
      ['4.16.1', 40, null],
      ['4.16.2', 20, null],
      ['(not served)', 10, 'version-not-in-channel'],
    ]);
    const stranded = await fleetJson(server.url, token, ['clusters', '--stranded']);
    expect(stranded.clusters.map((c: any) => c.id).sort()).toEqual(Array.from({ length: 10 }, (_, i) => uuid(60 + i)));
    const updates = await fleetJson(server.url, token, ['updates']);
    expect(updates.updates).toMatchObject([{ from: '4.16.1', to: '4.16.2', arch: 'amd64', started: 20, completed: 0 }]);
    const one = await fleetJson(server.url, token, ['clusters', '--id', uuid(3)]);
    expect(one.clusters[0]).toMatchObject({
      id: uuid(3),
      version: '4.16.2',
      history: [{ from: '4.16.1', to: '4.16.2' }],
    });

    // What to mirror for the whole fleet to reach 4.16.3: every version it runs is a source; the clusters
    // on a version the graph lacks have no path, said so, and the exit code says it too.
    const plan = await cincyAsync(['mirror-plan', '--to', '4.16.3', '--fleet', '-o', 'json'], {
      CINCY_SERVER: server.url,
      CINCY_TOKEN: token,
    });
    expect(plan.code, plan.stderr).toBe(1);
    const sources = JSON.parse(plan.stdout).sources as Array<{ from: string; reason?: unknown }>;
    expect(sources.map((x) => [x.from, 'reason' in x]).sort()).toEqual([
      ['4.16.1', false],
      ['4.16.2', false],
    ]);
    expect(plan.stderr).toMatch(/10 cluster\(s\) run a version the graph does not have/);

    // The table, as a terminal shows it.
    const table = await cincyAsync(['fleet'], { CINCY_SERVER: server.url, CINCY_TOKEN: token });
    expect(table.stdout).toMatch(/^clusters 70, stale 0, stranded 10, behind 60/);
    expect(table.stdout).toMatch(/stable-4\.16\s+amd64\s+\(not served\)\s+10\s+0\s+version-not-in-channel/);
    // Without the scope, a clear refusal.
    const refused = await cincyAsync(['fleet'], { CINCY_SERVER: server.url, CINCY_TOKEN: 'not-a-token' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/401/);
  });

  it('records nothing with --no-fleet', async () => {
    const secret = secretFile();
    const server = await serveCli(
      ['--db', ':memory:', '--demo', '--admin-jwt-secret-file', secret, '--no-fleet', '--fleet-flush-interval', '1s'],
      cleanup,
    );
    const token = await tokenFor(secret);
    for (let n = 0; n < 5; n++) await pollAs(server.url, n, '4.16.1');
    await new Promise((r) => setTimeout(r, 1500));
    expect(await fleetJson(server.url, token)).toMatchObject({ clusters: 0, recording: false });
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).not.toMatch(/cincy_fleet_polls_total/);
  });
});

describe.skipIf(!postgres.available)('the fleet of replicas sharing one PostgreSQL', { timeout: 120_000 }, () => {
  it('takes every replica’s polls, and either replica answers for the whole fleet', async () => {
    const secret = secretFile();
    const db = await postgres.database();
    const args = ['--db', db, '--graph-data', BUNDLED_GRAPH_DATA, '--admin-jwt-secret-file', secret];
    const a = await serveCli([...args, '--fleet-flush-interval', '1s'], cleanup);
    const b = await serveCli([...args, '--fleet-flush-interval', '1s'], cleanup);
    const token = await tokenFor(secret);
    // Clusters 0–49 poll replica a, 50–99 replica b; then 0–9 update through b (behind a load balancer,
    // a cluster's next poll may reach another replica).
    for (let n = 0; n < 100; n++) await pollAs(n < 50 ? a.url : b.url, n, '4.16.1');
    await until('both replicas flushed', async () => (await fleetJson(a.url, token)).clusters === 100 || undefined);
    for (let n = 0; n < 10; n++) await pollAs(b.url, n, '4.16.2');
    await until(
      'the update seen through the other replica',
      async () => (await fleetJson(a.url, token, ['updates'])).updates[0]?.started === 10 || undefined,
    );
    for (const url of [a.url, b.url])
      expect((await fleetJson(url, token)).groups.map((g: any) => [g.version, g.clusters])).toEqual([
        ['4.16.1', 90],
        ['4.16.2', 10],
      ]);
  });
});
