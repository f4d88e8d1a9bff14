// The admin API's test server: a ladder-shaped tree (internal candidate → fast → stable, public
// channels fed from them) served with an HS256 secret and a ManualClock, a fresh server per test,
// and the helpers the admin tests share. The server, clock and secret are live bindings.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, expect } from 'vitest';
import { ManualClock } from '@cincy/simulator/clock/manual';
import { createToken } from '../../src/cli/token.js';
import { readGraphData } from '../../src/sources/graphData.js';
import { startServer, tempDir, type TestServer } from './server.js';
import { release, writeTree } from './trees.js';

export const DAY = 86400e3;
const digest = (n: number): string => n.toString(16).padStart(64, '0');
/** The payload of a release numbered `n`; rec numbers a release by the digits of its version unless told. */
export const payloadOf = (n: number): string => `quay.example/ocp/release@sha256:${digest(n)}`;
export const rec = (version: string, previous: string[], url = `https://errata.example/${version}`, n = 0): string =>
  release(version, {
    previous,
    payload: payloadOf(n || Number(version.replace(/\D/g, ''))),
    metadata: url ? { url } : {},
  });

/** The files of writeTree's default tree, left out of a tree of these tests' own. */
export const WITHOUT_DEFAULT_FILES = {
  'channels/stable-4.1.yaml': undefined,
  'blocked-edges/4.1.1-Risk.yaml': undefined,
  'releases/amd64/4.1.0.json': undefined,
  'releases/amd64/4.1.1.json': undefined,
};

/** A ladder shaped like the real one: internal candidate → fast → stable, public channels fed from them. */
export function ladder(root: string): string {
  return writeTree(root, {
    ...WITHOUT_DEFAULT_FILES,
    'releases/amd64/4.14.1.json': rec('4.14.1', []),
    'releases/amd64/4.15.1.json': rec('4.15.1', ['4.14.1']),
    'releases/amd64/4.16.1.json': rec('4.16.1', ['4.15.1']),
    'releases/amd64/4.16.2.json': rec('4.16.2', ['4.15.1', '4.16.1'], ''),
    'releases/amd64/4.16.3.json': rec('4.16.3', ['4.16.1', '4.16.2']),
    'internal-channels/candidate.yaml': 'name: candidate\nversions: [4.14.1, 4.15.1]\n',
    'internal-channels/fast.yaml':
      'name: fast\nfeeder:\n  name: candidate\n  errata: public\nversions: [4.14.1, 4.15.1]\n',
    'internal-channels/stable.yaml': 'name: stable\nfeeder:\n  name: fast\n  delay: P1W\nversions: [4.14.1, 4.15.1]\n',
    'channels/fast-4.16.yaml':
      'name: fast-4.16\nfeeder:\n  name: fast\n  filter: 4[.](15|16)[.][0-9].*\nversions: [4.15.1]\n',
    'channels/stable-4.16.yaml':
      'name: stable-4.16\nfeeder:\n  name: stable\n  filter: 4[.](15|16)[.][0-9].*\ntombstones: [4.16.3]\nversions: [4.15.1]\n',
    'channels/eus-4.16.yaml':
      'name: eus-4.16\nfeeder:\n  name: stable\n  filter: 4[.](14|15|16)[.][0-9].*\n  delay: PT48H\nversions: [4.14.1, 4.15.1]\n',
    'channels/stable-4.14.yaml': 'name: stable-4.14\nversions: [4.14.1]\n',
  });
}

export let server: TestServer;
export let clock: ManualClock;
export let secretFile: string;
export const dirs: Array<{ remove(): void }> = [];
export const tokens: Record<string, string> = {};

export async function token(
  scope: string,
  extra: { ttl?: string; audience?: string; subject?: string; now?: Date } = {},
): Promise<string> {
  return createToken(
    {
      adminJwtSecretFile: secretFile,
      scope,
      ttl: extra.ttl ?? '1h',
      subject: extra.subject ?? 'alice',
      audience: extra.audience,
    },
    extra.now ?? new Date(clock.now()),
  );
}

export async function api(
  method: string,
  path: string,
  body?: unknown,
  auth: string | undefined = tokens.all,
): Promise<{ status: number; body: Record<string, unknown> & { kind?: string; value?: string } }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (auth) headers.authorization = `Bearer ${auth}`;
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export const graph = async (
  channel: string,
): Promise<{
  nodes: Array<{ version: string; metadata: Record<string, string> }>;
  edges: Array<[number, number]>;
  conditionalEdges: Array<{ edges: Array<{ from: string; to: string }> }>;
}> =>
  (await fetch(`${server.url}/graph?channel=${channel}`, { headers: { accept: 'application/json' } })).json() as never;
/** The content hash of the state the server exports as graph-data. */
export async function stateHash(): Promise<string> {
  const d = tempDir();
  dirs.push(d);
  const file = join(d.path, 'state.tar.gz');
  writeFileSync(file, Buffer.from(await (await fetch(`${server.url}/api/upgrades_info/graph-data`)).arrayBuffer()));
  const read = await readGraphData(file);
  expect(read.errors).toEqual([]);
  return read.tree!.contentHash;
}
export const versions = async (channel: string): Promise<string[]> =>
  (await graph(channel)).nodes.map((n) => n.version);

/** A fresh ladder server before each test of the calling file; the temporary folders go after it. */
/** A ladder server before each test; `db` gives its store (default: SQLite in memory). */
export function useLadderServer(db?: () => Promise<string>): void {
  beforeEach(async () => {
    const d = tempDir();
    dirs.push(d);
    secretFile = join(d.path, 'secret');
    writeFileSync(secretFile, 'a-secret-that-is-long-enough-for-hs256-0123456789\n');
    clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    server = await startServer({
      graphData: ladder(join(d.path, 'tree')),
      auth: { secretFile, rateLimit: 1000 },
      clock,
      ...(db && { db: await db() }),
    });
    tokens.all = await token('releases:write,channels:write,risks:write', { ttl: '30d' });
  });
  afterEach(async () => {
    await server?.close();
  });
  afterAll(() => {
    dirs.forEach((d) => d.remove());
    dirs.splice(0);
  });
}
