// Graph history as a user sees it: `cincy serve` processes changed through the admin API, read back
// with `cincy changes` as a shell runs it. A restart keeps the history and records nothing again; two
// replicas sharing one PostgreSQL record each change exactly once, and either one answers for it.
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

const RISK = {
  to: '4.16.2',
  from: '4[.]16[.]1',
  url: 'https://issues.example/e2e',
  name: 'HistoryE2eRisk',
  message: 'It breaks in the end-to-end test.',
  matchingRules: [{ type: 'Always' }],
};

function secretFile(): string {
  const secret = join(cleanup.dir(), 'secret');
  writeFileSync(secret, 'an-admin-secret-of-more-than-thirty-two-bytes\n');
  return secret;
}

async function tokenFor(secret: string, subject: string): Promise<string> {
  const r = await cincyAsync([
    'token',
    'create',
    '--admin-jwt-secret-file',
    secret,
    '--scope',
    'risks:write',
    '--subject',
    subject,
  ]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

async function admin(url: string, token: string, method: string, path: string, body?: unknown): Promise<void> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, await res.text()).toBeLessThan(300);
}

async function changes(url: string, args: string[] = []): Promise<any[]> {
  const r = await cincyAsync(['changes', ...args, '--json'], { CINCY_SERVER: url });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).changes;
}

/** Whether the stable-4.16 graph a server serves holds the risk on a conditional edge. */
async function servesRisk(url: string): Promise<boolean> {
  const res = await fetch(`${url}/graph?channel=stable-4.16&arch=amd64`, { headers: { accept: 'application/json' } });
  const g = (await res.json()) as { conditionalEdges: Array<{ risks: Array<{ name: string }> }> };
  return g.conditionalEdges.some((c) => c.risks.some((r) => r.name === RISK.name));
}

describe('graph history of a cincy serve process, read with cincy changes', { timeout: 120_000 }, () => {
  it('records a risk with its actor, keeps it across a restart, and records nothing again', async () => {
    const secret = secretFile();
    const db = join(cleanup.dir(), 'cincy.db');
    const serve = (): Promise<Served> =>
      serveCli(['--db', db, '--graph-data', BUNDLED_GRAPH_DATA, '--admin-jwt-secret-file', secret], cleanup);
    let server = await serve();
    expect(await changes(server.url)).toEqual([]);
    await admin(server.url, await tokenFor(secret, 'frank'), 'POST', '/api/v1/risks', RISK);
    const declared = await until('the risk recorded', async () => {
      const got = await changes(server.url, ['--kind', 'risk-declared', '--channel', 'stable-4.16', '--arch', 'amd64']);
      return got.length > 0 && got;
    });
    expect(declared).toMatchObject([
      {
        kind: 'risk-declared',
        channel: 'stable-4.16',
        arch: 'amd64',
        risk: RISK.name,
        cause: 'risk',
        actor: 'frank',
        detail: { message: RISK.message, url: RISK.url, edges: [{ from: '4.16.1', to: '4.16.2' }] },
      },
    ]);
    const all = await changes(server.url);

    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
    server = await serve();
    expect(await changes(server.url)).toEqual(all);

    // The table, as a terminal shows it; a bad option is refused naming it.
    const table = await cincyAsync(['changes', '--channel', 'stable-4.16', '--arch', 'amd64', '--since', '7d'], {
      CINCY_SERVER: server.url,
    });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/risk-declared\s+stable-4\.16\/amd64\s+HistoryE2eRisk\s+risk\s+frank/);
    const bad = await cincyAsync(['changes', '--since', 'last tuesday'], { CINCY_SERVER: server.url });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--since/);
  });
});

describe.skipIf(!postgres.available)('graph history of replicas sharing one PostgreSQL', { timeout: 120_000 }, () => {
  it('records each change exactly once, and either replica answers for it', async () => {
    const secret = secretFile();
    const db = await postgres.database();
    const args = ['--db', db, '--graph-data', BUNDLED_GRAPH_DATA, '--admin-jwt-secret-file', secret];
    const a = await serveCli(args, cleanup);
    const b = await serveCli(args, cleanup);
    const token = await tokenFor(secret, 'grace');
    const recorded = async (kind: string): Promise<any[]> => {
      const lists = await Promise.all([a.url, b.url].map((url) => changes(url, ['--kind', kind])));
      expect(lists[0]).toEqual(lists[1]);
      return lists[0]!;
    };

    await admin(a.url, token, 'POST', '/api/v1/risks', RISK);
    await until('both replicas serve the risk', async () => (await servesRisk(a.url)) && (await servesRisk(b.url)));
    await until('the risk recorded', async () => (await recorded('risk-declared')).length > 0);
    // Through the other replica: the risk withdrawn.
    await admin(b.url, token, 'DELETE', `/api/v1/risks/${RISK.to}-${RISK.name}?reason=fixed`);
    await until(
      'neither replica serves the risk',
      async () => !(await servesRisk(a.url)) && !(await servesRisk(b.url)),
    );
    await until('the withdrawal recorded', async () => (await recorded('risk-withdrawn')).length > 0);

    const declared = await recorded('risk-declared');
    const withdrawn = await recorded('risk-withdrawn');
    const where = (list: any[]): string[] => list.map((c) => `${c.channel}/${c.arch}`);
    // Once per view that serves the edge: no view twice.
    expect(where(declared)).toEqual([...new Set(where(declared))]);
    expect(where(withdrawn).sort()).toEqual(where(declared).sort());
    expect(where(declared)).toContain('stable-4.16/amd64');
    expect(declared.every((c) => c.actor === 'grace' && c.risk === RISK.name)).toBe(true);
    // Every change of the history, once: no kind of change recorded twice for a view.
    const keys = (await changes(a.url)).map(
      (c) => `${c.kind} ${c.channel}/${c.arch} ${c.risk ?? c.version ?? `${c.from}-${c.to}`}`,
    );
    expect(keys).toEqual([...new Set(keys)]);
  });
});
