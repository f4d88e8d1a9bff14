// What `cincy serve` loads before it answers, and what it leaves until a request needs it (src/server/lazyApp.ts,
// the lazy imports of the tree reader, the YAML writer and the tar reader): a start loads neither Swagger UI
// and its OpenAPI generator, nor the static file server and its glob, nor the YAML parsers and tar; the
// first requests for the API docs and the web page's assets load them and are answered.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveCli, useCleanup, waitReady } from '../support/cli.js';
import { CHEAP_POLL_MS, until } from '../support/processes.js';

const cleanup = useCleanup();

/** Preloaded into serve: on SIGUSR2, writes the modules the main thread has loaded (CommonJS and ES) to OUT/loaded-N.json. */
const PRELOAD = `
import { createRequire, register } from 'node:module';
import { writeFileSync } from 'node:fs';
import { isMainThread, MessageChannel } from 'node:worker_threads';
if (isMainThread) {
  const { port1, port2 } = new MessageChannel();
  const resolved = [];
  port1.on('message', (url) => resolved.push(url));
  port1.unref();
  const hook = 'let p; export async function initialize(d) { p = d.port }' +
    ' export async function resolve(s, c, next) { const r = await next(s, c); p.postMessage(r.url); return r }';
  register('data:text/javascript,' + encodeURIComponent(hook), { data: { port: port2 }, transferList: [port2] });
  const cache = createRequire(import.meta.url).cache;
  let n = 0;
  process.on('SIGUSR2', () => {
    n += 1;
    writeFileSync(process.env.LOADED_OUT + '/loaded-' + n + '.json', JSON.stringify([...Object.keys(cache), ...resolved]));
  });
}
`;

/** The packages under node_modules and the files under dist/ that the main thread has loaded by now. */
async function loadedNow(pid: number, out: string, n: number): Promise<Set<string>> {
  process.kill(pid, 'SIGUSR2');
  const file = join(out, `loaded-${n}.json`);
  const list = await until(
    'the list of loaded modules',
    async () => existsSync(file) && readFileSync(file, 'utf8'),
    10_000,
    CHEAP_POLL_MS,
  );
  const names = new Set<string>();
  for (const path of JSON.parse(list) as string[]) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1];
    if (pkg) names.add(pkg);
    const vendored = /\/dist\/vendor\/([^/]+)\.js$/.exec(path)?.[1];
    if (vendored) names.add(`#${vendored}`);
  }
  return names;
}

/** Loaded by a request that needs them, never by a start. */
const LEFT_FOR_LATER = [
  '@fastify/swagger',
  '@fastify/swagger-ui',
  '@fastify/static',
  'glob',
  'tar-stream',
  '#yaml',
  '#js-yaml',
];

describe('e2e: what serve leaves until it is asked', () => {
  it('starts without the API docs, the static files, the YAML parsers and tar; the first requests load them', async () => {
    const dir = cleanup.dir();
    const preload = join(dir, 'preload.mjs');
    writeFileSync(preload, PRELOAD);
    const served = await serveCli(['--db', join(dir, 'demo.db'), '--demo'], cleanup, {
      NODE_OPTIONS: `--import ${preload}`,
      LOADED_OUT: dir,
    });
    await waitReady(served.url);
    const pid = served.child.pid!;

    const atStart = await loadedNow(pid, dir, 1);
    // The check sees what is loaded: fastify and the store's driver are.
    expect([...atStart]).toEqual(expect.arrayContaining(['fastify', 'better-sqlite3', 'pino']));
    expect(LEFT_FOR_LATER.filter((name) => atStart.has(name))).toEqual([]);

    // Asked for, each is loaded and answers as before.
    const docs = await fetch(`${served.url}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
    const openapi = await fetch(`${served.url}/openapi`);
    expect(((await openapi.json()) as { openapi: string }).openapi).toBe('3.1.0');
    const asset = readdirSync(join(import.meta.dirname, '..', '..', 'dist', 'ui', 'assets')).find((f) =>
      f.endsWith('.js'),
    )!;
    const script = await fetch(`${served.url}/ui/assets/${asset}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('cache-control')).toContain('immutable');

    const afterRequests = await loadedNow(pid, dir, 2);
    expect(
      ['@fastify/swagger', '@fastify/swagger-ui', '@fastify/static', 'glob'].filter((name) => !afterRequests.has(name)),
    ).toEqual([]);
  });
});
