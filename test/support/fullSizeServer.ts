// A server in this process on a full-size store (the generator's --size full tree, ~6,000 releases,
// written in this process), and the reads the admin tests of it make: for
// test/service/app/admin/readModel.test.ts and test/e2e/admin-read-model-cli.test.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { afterAll, beforeAll, expect } from 'vitest';
import { generateDataset } from '../../scripts/graph-data/generate.mjs';
import { writeTree } from '../../scripts/graph-data/writeTree.mjs';
import { createToken } from '../../src/cli/token.js';
import type { Release } from '../../src/graph/model.js';
import type { StoreTx } from '../../src/store/store.js';
import { startServer, tempDir, type TestServer } from './server.js';

export let server: TestServer;
export let token: string;
/** The server's folder: its tree is graph-data/ in it. */
export let dir: { path: string; remove(): void };

/** Starts the server before the calling file's tests (and stops it after them), with a token of every write scope. */
export function useFullSizeServer(): void {
  dir = tempDir();
  beforeAll(async () => {
    // What `node scripts/generate-graph-data.mjs --out <tree> --size full` writes (its seed defaults to 1).
    const tree = join(dir.path, 'graph-data');
    writeTree(tree, generateDataset({ size: 'full', seed: 1 }));
    const secretFile = join(dir.path, 'secret');
    writeFileSync(secretFile, 'a-secret-that-is-long-enough-for-hs256-0123456789\n');
    server = await startServer({ graphData: tree, auth: { secretFile, rateLimit: 10_000 } });
    token = await createToken(
      { adminJwtSecretFile: secretFile, scope: 'releases:write,channels:write,risks:write', ttl: '1h', subject: 'pat' },
      new Date(),
    );
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    dir.remove();
  });
}

export interface Answer {
  status: number;
  body: Record<string, unknown> & { nextCursor?: string; value?: string };
}

export async function api(method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

/** Every item of a list, page after page; `between` runs after the first page. */
export async function pages(
  path: string,
  field: string,
  limit: number,
  between?: () => Promise<void>,
): Promise<{ items: Array<Record<string, unknown>>; pages: number }> {
  const items: Array<Record<string, unknown>> = [];
  let cursor: string | undefined;
  let n = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const r = await api('GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const page = r.body[field] as Array<Record<string, unknown>>;
    expect(page.length).toBeLessThanOrEqual(limit);
    if (r.body.nextCursor) expect(page.length).toBe(limit);
    items.push(...page);
    cursor = r.body.nextCursor;
    n += 1;
    if (n === 1) await between?.();
  } while (cursor);
  return { items, pages: n };
}

export const releaseKey = (r: { version?: unknown; architecture?: unknown; arch?: unknown }): string =>
  `${String(r.version)}+${String(r.architecture ?? r.arch)}`;

/** Reads the server's store directly, in one transaction. */
export const stored = <T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> => server.store.read(fn);

/** The store's releases in the API's order, sorted here independently of the server's read model. */
export async function sortedReleases(keep: (r: Release) => boolean = () => true): Promise<string[]> {
  return (await stored((tx) => tx.releases.all()))
    .filter(keep)
    .sort((a, b) => semver.compare(a.version, b.version) || (a.arch < b.arch ? -1 : a.arch > b.arch ? 1 : 0))
    .map(releaseKey);
}

export async function inChannel(name: string): Promise<(r: Release) => boolean> {
  const channel = await stored(
    async (tx) => (await tx.channels.get('public', name)) ?? (await tx.channels.get('internal', name)),
  );
  const members = new Set(channel!.versions);
  return (r) => members.has(r.version) || members.has(`${r.version}+${r.arch}`);
}

export function expectOnceEach(keys: string[]): void {
  expect(new Set(keys).size).toBe(keys.length);
}
