// The registry sources against a real registry (Debian's docker-registry, images pushed with skopeo):
// release images read as the reference graph-builder reads them, the per-digest cache, bad tags, auth and
// TLS, and the graph-data image. The server runs in this process; the registry is a real process.
import { createHash, randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { refreshAll } from '../../src/app/refresh/loop.js';
import type { Release } from '../../src/graph/model.js';
import type { Engine } from '../../src/store/sql.js';
import { usePostgres } from '../support/postgres.js';
import { RegistryClient } from '../../src/registry/client.js';
import { layerOf, pushImage } from '../../src/registry/imageWriter.js';
import { parseRepository } from '../../src/registry/reference.js';
import { useCleanup } from '../support/cli.js';
import { OCI_LAYER_GZIP, OciLayout } from '../support/ociLayout.js';
import { registryAvailable, startRegistry, type TestRegistry } from '../support/registry.js';
import { releaseImage } from '../support/releaseImages.js';
import { startServer, type TestServer } from '../support/server.js';
import { skopeoCopy } from '../support/skopeo.js';
import { proxyRegistry } from '../support/registryProxy.js';

const postgres = usePostgres();
const engines: Engine[] = postgres.available ? ['sqlite', 'postgres'] : ['sqlite'];
/** The store of a test server on `engine`: SQLite in memory, or a PostgreSQL database of its own. */
const storeOn = async (engine: Engine): Promise<{ db?: string }> =>
  engine === 'postgres' ? { db: await postgres.database() } : {};

const releasesOf = (server: TestServer): Promise<Release[]> => server.store.read((tx) => tx.releases.all());
const releaseOf = (server: TestServer, arch: string, version: string): Promise<Release | undefined> =>
  server.store.read((tx) => tx.releases.get(arch, version));

const cleanup = useCleanup();

/** A graph-data tree with one channel per name, each listing `versions`. */
function tree(channels: Record<string, string[]>): string {
  const dir = cleanup.dir();
  mkdirSync(join(dir, 'channels'));
  writeFileSync(join(dir, 'version'), '1.1.0\n');
  for (const [name, versions] of Object.entries(channels))
    writeFileSync(
      join(dir, 'channels', `${name}.yaml`),
      `name: ${name}\nversions:\n${versions.map((v) => `- ${v}\n`).join('')}`,
    );
  return dir;
}

async function graph(server: TestServer, channel: string, arch = 'amd64') {
  const res = await fetch(`${server.url}/graph?channel=${channel}&arch=${arch}`, {
    headers: { accept: 'application/json' },
  });
  return (await res.json()) as {
    nodes: Array<{ version: string; payload: string; metadata: Record<string, string> }>;
    edges: Array<[number, number]>;
  };
}

const edgesOf = (g: Awaited<ReturnType<typeof graph>>): string[] =>
  g.edges.map(([a, b]) => `${g.nodes[a]!.version}->${g.nodes[b]!.version}`).sort();

async function digestOf(reg: TestRegistry, repoTag: string): Promise<string> {
  const [repo, tag] = repoTag.split(':') as [string, string];
  const client = new RegistryClient(parseRepository(reg.reference(repo), 'test'), {
    ca: reg.caFile && (await import('node:fs')).readFileSync(reg.caFile, 'utf8'),
  });
  try {
    return (await client.manifest(tag)).digest;
  } finally {
    await client.close();
  }
}

const blobGets = async (reg: TestRegistry, repo: string): Promise<string[]> =>
  (await reg.requests())
    .filter((r) => r.method === 'GET' && r.path.startsWith(`/v2/${repo}/blobs/`))
    .map((r) => r.path);

// On each engine: what a scrape stores (releases, the manifests and tags it remembers) is the same on PostgreSQL.
describe.runIf(registryAvailable()).each(engines)('release images from a registry, on %s', (engine) => {
  it('reads each tag as the reference does: metadata from the top-most layer, arch from the config, an index as multi, payload by digest', async () => {
    const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
    const layout = new OciLayout(cleanup.dir());
    const base = await layout.layer({ 'etc/os-release': 'ID=rhel\n' });
    // Incompressible, below the release layer: it must never be fetched.
    const big = await layout.layer({ 'usr/share/big.bin': randomBytes(6 * 1024 * 1024) });
    await releaseImage(layout, { version: '4.15.0', below: [base], tag: 'a' });
    await releaseImage(layout, { version: '4.15.1', previous: ['4.15.0'], below: [base, big], tag: 'b' });
    await releaseImage(layout, { version: '4.15.2', previous: ['4.15.0', '4.15.1'], below: [base], tag: 'c' });
    const multiMeta = { 'release.openshift.io/architecture': 'multi', url: 'https://errata.example.com/m' };
    const m1 = await releaseImage(layout, {
      version: '4.15.1',
      previous: ['4.15.0'],
      metadata: multiMeta,
      arch: 'amd64',
    });
    const m2 = await releaseImage(layout, {
      version: '4.15.1',
      previous: ['4.15.0'],
      metadata: multiMeta,
      arch: 'arm64',
      tag: 'arm-member',
    });
    layout.index({ manifests: [m1, m2], tag: 'multi' });
    await releaseImage(layout, { version: '4.15.0', previous: [], metadata: multiMeta, arch: 'amd64', tag: 'm0a' });
    layout.image({ layers: [base], arch: 'amd64', tag: 'tools' });

    await skopeoCopy(layout.dir, 'a', reg, 'ocp/release:4.15.0-x86_64');
    await skopeoCopy(layout.dir, 'b', reg, 'ocp/release:4.15.1-x86_64');
    await skopeoCopy(layout.dir, 'c', reg, 'ocp/release:4.15.2-x86_64', { format: 'v2s2' }); // Docker schema 2
    await skopeoCopy(layout.dir, 'multi', reg, 'ocp/release:4.15.1-multi', { all: true });
    await skopeoCopy(layout.dir, 'arm-member', reg, 'ocp/release:4.15.1-aarch64'); // a member tagged on its own
    await skopeoCopy(layout.dir, 'tools', reg, 'ocp/release:tools'); // not a release image

    const server = await startServer({
      ...(await storeOn(engine)),
      graphData: tree({ 'stable-4.15': ['4.15.0', '4.15.1', '4.15.2'] }),
      registry: { releases: reg.reference('ocp/release') },
    });
    cleanup.add(() => server.close());

    const stored = (await releasesOf(server)).map((r) => `${r.arch} ${r.version} ${r.payload}`).sort();
    const pin = async (tag: string): Promise<string> =>
      `${reg.host}/ocp/release@${await digestOf(reg, `ocp/release:${tag}`)}`;
    expect(stored).toEqual(
      [
        `amd64 4.15.0 ${await pin('4.15.0-x86_64')}`,
        `amd64 4.15.1 ${await pin('4.15.1-x86_64')}`,
        `amd64 4.15.2 ${await pin('4.15.2-x86_64')}`,
        `multi 4.15.1 ${await pin('4.15.1-multi')}`,
      ].sort(),
    );
    const status = server.sources[0]!.status;
    expect(status).toMatchObject({ kind: 'registry-releases', ready: true, failures: 0, releases: 4 });

    const amd = await graph(server, 'stable-4.15');
    expect(edgesOf(amd)).toEqual(['4.15.0->4.15.1', '4.15.0->4.15.2', '4.15.1->4.15.2']);
    const n = amd.nodes.find((x) => x.version === '4.15.2')!;
    expect(n.payload).toBe(await pin('4.15.2-x86_64'));
    expect(n.metadata['io.openshift.upgrades.graph.release.manifestref']).toBe(n.payload.split('@')[1]);
    expect(n.metadata.url).toBe('https://errata.example.com/4.15.2');
    const multi = await graph(server, 'stable-4.15', 'multi');
    expect(multi.nodes.map((x) => x.version)).toEqual(['4.15.1']);

    // Top-most layer first, abandoned at the hit: the 6 MiB layer below the metadata was never fetched.
    const gets = await blobGets(reg, 'ocp/release');
    expect(gets).not.toContain(`/v2/ocp/release/blobs/${big.digest}`);

    // A second scrape reads no blob and no manifest: the tags were seen and their digests are remembered.
    const before = (await reg.requests()).length;
    await refreshAll(server.sources);
    const after = (await reg.requests()).slice(before).filter((r) => !r.path.startsWith('/cincy-log-barrier'));
    expect(after.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v2/ocp/release/tags/list']);
  });

  it('a new tag appears on the next scrape; two images of one version fail the scrape naming both tags, and the last good releases keep serving', async () => {
    const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
    const layout = new OciLayout(cleanup.dir());
    await releaseImage(layout, { version: '4.16.0', tag: 'v0' });
    await releaseImage(layout, { version: '4.16.1', previous: ['4.16.0'], tag: 'v1' });
    await releaseImage(layout, {
      version: '4.16.1',
      previous: ['4.16.0'],
      metadata: { url: 'https://other' },
      tag: 'v1b',
    });
    await skopeoCopy(layout.dir, 'v0', reg, 'ocp/release:4.16.0-x86_64');
    const server = await startServer({
      ...(await storeOn(engine)),
      graphData: tree({ 'stable-4.16': ['4.16.0', '4.16.1'] }),
      registry: { releases: reg.reference('ocp/release') },
    });
    cleanup.add(() => server.close());
    expect((await graph(server, 'stable-4.16')).nodes.map((x) => x.version)).toEqual(['4.16.0']);

    await skopeoCopy(layout.dir, 'v1', reg, 'ocp/release:4.16.1-x86_64');
    expect(await refreshAll(server.sources)).toBe(true);
    await server.service.rebuild();
    expect(edgesOf(await graph(server, 'stable-4.16'))).toEqual(['4.16.0->4.16.1']);
    const good = (await releaseOf(server, 'amd64', '4.16.1'))!.payload;

    await skopeoCopy(layout.dir, 'v1b', reg, 'ocp/release:4.16.1-rebuild');
    expect(await refreshAll(server.sources)).toBe(false);
    const failure = server.sources[0]!.status.lastFailure!;
    const named =
      /:(4\.16\.1-\w+): version: 4\.16\.1 \(amd64\) is also the image of tag (4\.16\.1-\w+) with another digest/.exec(
        failure.problems.join('\n'),
      );
    expect(named && [named[1], named[2]].sort()).toEqual(['4.16.1-rebuild', '4.16.1-x86_64']);
    expect((await releaseOf(server, 'amd64', '4.16.1'))!.payload).toBe(good);
    const ready = await (await fetch(`${server.url}/readyz`)).json();
    expect(ready.status).toBe('ready');
    expect(ready.sources[0].lastFailure.message).toContain('1 problem(s)');

    // The duplicate removed: the next scrape succeeds and the failure is gone.
    const digest = await digestOf(reg, 'ocp/release:4.16.1-rebuild');
    const del = await fetch(`${reg.url}/v2/ocp/release/manifests/${digest}`, { method: 'DELETE' });
    expect(del.status).toBe(202);
    await refreshAll(server.sources);
    expect(server.sources[0]!.status.lastFailure).toBeUndefined();
  });

  it('lists tags page by page (n, last and Link), and takes only the tags the RE2 filter matches', async () => {
    const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
    const layout = new OciLayout(cleanup.dir());
    const tags = ['4.14.0-x86_64', '4.14.1-x86_64', '4.15.0-x86_64', '4.15.1-x86_64', 'operator-x'];
    for (const [i, t] of tags.entries()) {
      await releaseImage(layout, { version: `4.1${4 + Math.floor(i / 2)}.${i % 2}`, tag: t });
      await skopeoCopy(layout.dir, t, reg, `ocp/release:${t}`);
    }
    // distribution 2.8 answers the whole list whatever n says; registries such as Quay page it. A proxy in
    // front of the real registry pages it as the distribution spec describes, and passes the rest through.
    const pages: string[] = [];
    const proxy = await proxyRegistry(
      reg,
      async (req, url, res, forward) => {
        if (!url.pathname.endsWith('/tags/list')) return false;
        pages.push(url.search);
        const all = ((JSON.parse((await forward()).body.toString()) as { tags: string[] }).tags ?? []).sort();
        const n = Number(url.searchParams.get('n') ?? all.length);
        const last = url.searchParams.get('last');
        const page = all.filter((t) => !last || t > last).slice(0, n);
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (page.length && all.indexOf(page.at(-1)!) < all.length - 1)
          headers.link = `<${url.pathname}?n=${n}&last=${page.at(-1)}>; rel="next"`;
        res.writeHead(200, headers).end(JSON.stringify({ name: 'ocp/release', tags: page }));
        return true;
      },
      cleanup,
    );
    const proxied = `${proxy.url}/ocp/release`;

    const client = new RegistryClient(parseRepository(proxied, 'test'));
    cleanup.add(() => client.close());
    expect((await client.tags({ pageSize: 2 })).tags).toEqual(tags);
    expect(pages).toEqual(['?n=2', '?n=2&last=4.14.1-x86_64', '?n=2&last=4.15.1-x86_64']);

    const server = await startServer({
      ...(await storeOn(engine)),
      graphData: tree({ 'stable-4.15': ['4.15.0', '4.15.1'] }),
      registry: { releases: proxied, releasesTagFilter: '^4\\.15\\.' },
    });
    cleanup.add(() => server.close());
    expect((await releasesOf(server)).map((r) => r.version).sort()).toEqual(['4.15.0', '4.15.1']);
    expect(server.sources[0]!.status.releases).toBe(2);
  });

  it('basic auth and TLS: credentials from a config.json and a CA bundle; without them, errors that say what to give', async () => {
    const reg = await startRegistry(
      { dir: cleanup.dir(), auth: { user: 'mirror', password: 's3cret' }, tls: true },
      cleanup,
    );
    const layout = new OciLayout(cleanup.dir());
    await releaseImage(layout, { version: '4.16.0', tag: 'v0' });
    await skopeoCopy(layout.dir, 'v0', reg, 'ocp/release:4.16.0-x86_64');
    const releases = reg.reference('ocp/release');
    expect(releases).toBe(`${reg.host}/ocp/release`);

    const ok = await startServer({
      ...(await storeOn(engine)),
      graphData: tree({ 'stable-4.16': ['4.16.0'] }),
      registry: { releases, registryCredentials: reg.credentialsFile, registryCa: reg.caFile },
    });
    cleanup.add(() => ok.close());
    expect((await releaseOf(ok, 'amd64', '4.16.0'))?.payload).toMatch(new RegExp(`^${reg.host}/ocp/release@sha256:`));

    const noCreds = await startServer({
      ...(await storeOn(engine)),
      graphData: tree({ a: [] }),
      registry: { releases, registryCa: reg.caFile },
    });
    cleanup.add(() => noCreds.close());
    expect(noCreds.sources[0]!.status.lastFailure?.message).toMatch(/401.*--registry-credentials/);
    const ready = await fetch(`${noCreds.url}/readyz`);
    expect(ready.status).toBe(503); // never read, and nothing from an earlier run

    const noCa = await startServer({
      ...(await storeOn(engine)),
      graphData: tree({ a: [] }),
      registry: { releases, registryCredentials: reg.credentialsFile },
    });
    cleanup.add(() => noCa.close());
    expect(noCa.sources[0]!.status.lastFailure?.message).toMatch(/certificate/i);
  });
});

describe.runIf(registryAvailable())('the Bearer token flow', () => {
  it('answers a WWW-Authenticate Bearer challenge with a token from the realm, asked with the credentials and the pull scope', async () => {
    const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
    const layout = new OciLayout(cleanup.dir());
    await releaseImage(layout, { version: '4.16.0', tag: 'v0' });
    await skopeoCopy(layout.dir, 'v0', reg, 'ocp/release:4.16.0-x86_64');
    // A token service in front of the real registry, as Quay or Harbor put one: /v2/ without a token is a
    // 401 naming the realm; the realm hands out a token for the right credentials.
    const asked: string[] = [];
    const gate = await proxyRegistry(
      reg,
      (req, url, res) => {
        if (url.pathname === '/token') {
          asked.push(
            `${req.headers.authorization} ${url.searchParams.get('service')} ${url.searchParams.get('scope')}`,
          );
          const ok = req.headers.authorization === `Basic ${Buffer.from('robot:tok3n').toString('base64')}`;
          res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
          res.end(ok ? JSON.stringify({ token: 'granted', expires_in: 300 }) : '{}');
          return true;
        }
        if (req.headers.authorization === 'Bearer granted') return false;
        res.writeHead(401, {
          'www-authenticate': `Bearer realm="${gate.url}/token",service="gate",scope="repository:ocp/release:pull"`,
          'content-type': 'application/json',
        });
        res.end(JSON.stringify({ errors: [{ code: 'UNAUTHORIZED', message: 'authentication required' }] }));
        return true;
      },
      cleanup,
    );
    const port = gate.port;
    const creds = join(cleanup.dir(), 'config.json');
    writeFileSync(
      creds,
      JSON.stringify({ auths: { [`127.0.0.1:${port}/ocp`]: { auth: Buffer.from('robot:tok3n').toString('base64') } } }),
    );

    const server = await startServer({
      graphData: tree({ 'stable-4.16': ['4.16.0'] }),
      registry: { releases: `http://127.0.0.1:${port}/ocp/release`, registryCredentials: creds },
    });
    cleanup.add(() => server.close());
    expect((await releaseOf(server, 'amd64', '4.16.0'))?.payload).toMatch(
      new RegExp(`^127.0.0.1:${port}/ocp/release@sha256:`),
    );
    // One token for the repository's pull scope, asked once with the credentials of the most specific entry.
    expect(asked).toEqual([`Basic ${Buffer.from('robot:tok3n').toString('base64')} gate repository:ocp/release:pull`]);
  });
});

describe.runIf(registryAvailable())('a registry that throttles, fails or stalls', () => {
  it('retries 429 (after Retry-After) and 503 with backoff, and times out a request that never answers', async () => {
    const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
    const layout = new OciLayout(cleanup.dir());
    await releaseImage(layout, { version: '4.16.0', tag: 'v0' });
    await skopeoCopy(layout.dir, 'v0', reg, 'ocp/release:4.16.0-x86_64');
    const seen: string[] = [];
    let stall = false;
    const proxy = await proxyRegistry(
      reg,
      (req, url, res) => {
        const what = `${req.method} ${url.pathname.replace(/sha256:[0-9a-f]+/, 'DIGEST')}`;
        seen.push(what);
        const times = seen.filter((x) => x === what).length;
        if (stall && url.pathname.includes('/manifests/')) return true; // never answers
        if (url.pathname.endsWith('/tags/list') && times === 1) {
          res.writeHead(429, { 'retry-after': '1' }).end();
          return true;
        }
        if (url.pathname.includes('/blobs/') && times <= 2) {
          res.writeHead(503).end('busy');
          return true;
        }
        return false;
      },
      cleanup,
    );
    const releases = `${proxy.url}/ocp/release`;
    const server = await startServer({
      graphData: tree({ 'stable-4.16': ['4.16.0'] }),
      registry: { releases, registryTimeout: 1 },
    });
    cleanup.add(() => server.close());
    expect(await releaseOf(server, 'amd64', '4.16.0')).toBeDefined();
    expect(seen.filter((x) => x === 'GET /v2/ocp/release/tags/list')).toHaveLength(2);
    expect(seen.filter((x) => x === 'GET /v2/ocp/release/blobs/DIGEST').length).toBeGreaterThanOrEqual(4);

    // A registry that stops answering: each attempt times out after --registry-timeout, then the scrape fails.
    const stalled = await startServer({ graphData: tree({ a: [] }), registry: { releases, registryTimeout: 1 } });
    cleanup.add(() => stalled.close());
    stall = true;
    await stalled.store.write((tx) => tx.sql.run('DELETE FROM registry_tags')); // so the tags are asked for again
    await refreshAll(stalled.sources);
    expect(stalled.sources[0]!.status.lastFailure?.message).toMatch(/timeout/i);
  }, 30_000);
});

describe.runIf(registryAvailable())('tags that are not release images, and layers read in part', () => {
  it('skips an artifact tag (a cosign signature) and an image without metadata, and still reads the releases', async () => {
    const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
    const layout = new OciLayout(cleanup.dir());
    await releaseImage(layout, { version: '4.16.0', tag: 'v0' });
    await skopeoCopy(layout.dir, 'v0', reg, 'ocp/release:4.16.0-x86_64');
    // A cosign signature as oc-mirror mirrors it: a manifest whose one layer is a signature payload, not a tar.
    const digest = await digestOf(reg, 'ocp/release:4.16.0-x86_64');
    const client = new RegistryClient(parseRepository(reg.reference('ocp/release'), 'test'));
    cleanup.add(() => client.close());
    const sig = Buffer.from(JSON.stringify({ critical: { image: { 'docker-manifest-digest': digest } } }));
    const config = Buffer.from('{}');
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: {
          mediaType: 'application/vnd.oci.image.config.v1+json',
          digest: await client.pushBlob(config),
          size: 2,
        },
        layers: [
          {
            mediaType: 'application/vnd.dev.cosign.simplesigning.v1+json',
            digest: await client.pushBlob(sig),
            size: sig.length,
          },
        ],
      }),
    );
    await client.pushManifest(
      `${digest.replace(':', '-')}.sig`,
      'application/vnd.oci.image.manifest.v1+json',
      manifest,
    );
    const server = await startServer({
      graphData: tree({ 'stable-4.16': ['4.16.0'] }),
      registry: { releases: reg.reference('ocp/release') },
    });
    cleanup.add(() => server.close());
    expect(server.sources[0]!.status.lastFailure).toBeUndefined();
    expect((await releasesOf(server)).map((r) => r.version)).toEqual(['4.16.0']);
  });

  it('reads the metadata at the head of large release layers without holding a connection per layer', async () => {
    const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
    const client = new RegistryClient(parseRepository(reg.reference('ocp/release'), 'test'));
    cleanup.add(() => client.close());
    // 40 images whose release layer has the metadata first and 1 MiB after it: more layers than connections.
    const noise = randomBytes(1024 * 1024);
    for (let z = 0; z < 40; z++) {
      const doc = JSON.stringify({ kind: 'cincinnati-metadata-v0', version: `4.16.${z}`, previous: [] });
      const layer = await layerOf(
        new Map<string, string | Buffer>([
          ['release-manifests/release-metadata', doc],
          ['zz/noise.bin', noise],
        ]),
      );
      await pushImage(client, { layers: [layer], arch: 'amd64', tag: `4.16.${z}-x86_64` });
    }
    const server = await startServer({
      graphData: tree({ a: [] }),
      registry: { releases: reg.reference('ocp/release') },
    });
    expect(await server.store.read((tx) => tx.releases.count())).toBe(40);
    await server.close(); // resolves only when every connection was given back
  }, 60_000);

  it('fails a scrape whose blob stalls midway (the timeout), instead of hanging', async () => {
    const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
    const layout = new OciLayout(cleanup.dir());
    await releaseImage(layout, { version: '4.16.0', tag: 'v0' });
    await skopeoCopy(layout.dir, 'v0', reg, 'ocp/release:4.16.0-x86_64');
    const proxy = await proxyRegistry(
      reg,
      async (req, url, res, forward) => {
        if (!url.pathname.includes('/blobs/')) return false;
        const r = await forward();
        res.writeHead(r.status, { ...r.headers, 'content-length': String(r.body.length) });
        res.write(r.body.subarray(0, 10)); // ... and nothing more
        return true;
      },
      cleanup,
    );
    const server = await startServer({
      graphData: tree({ a: [] }),
      registry: { releases: `${proxy.url}/ocp/release`, registryTimeout: 1 },
    });
    cleanup.add(() => server.close());
    expect(server.sources[0]!.status.lastFailure?.message).toMatch(/timeout/i);
  }, 30_000);
});

describe.runIf(registryAvailable())('graph-data from an image', () => {
  const GD = 'var/lib/cincinnati-graph-data';
  const channel = (name: string, versions: string[]): string =>
    `name: ${name}\nversions:\n${versions.map((v) => `- ${v}\n`).join('')}`;

  it('applies the layers with whiteouts, re-reads when the tag moves, and refuses a link leaving the tree (the last good tree keeps serving)', async () => {
    const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
    const layout = new OciLayout(cleanup.dir());
    await releaseImage(layout, { version: '4.16.0', tag: 'v0' });
    await releaseImage(layout, { version: '4.16.1', previous: ['4.16.0'], tag: 'v1' });
    await skopeoCopy(layout.dir, 'v0', reg, 'ocp/release:4.16.0-x86_64');
    await skopeoCopy(layout.dir, 'v1', reg, 'ocp/release:4.16.1-x86_64');
    const lower = await layout.layer({
      [`${GD}/version`]: '1.1.0\n',
      [`${GD}/channels/stable-4.16.yaml`]: channel('stable-4.16', ['4.16.0', '4.16.1']),
      [`${GD}/channels/fast-4.16.yaml`]: channel('fast-4.16', ['4.16.0', '4.16.1']),
      [`${GD}/blocked-edges/4.16.1.yaml`]: 'to: 4.16.1\nfrom: 4\\.16\\.0\n',
      'etc/unrelated': 'outside the tree\n',
    });
    const upper = await layout.layer(
      { [`${GD}/channels/candidate-4.16.yaml`]: channel('candidate-4.16', ['4.16.0', '4.16.1']) },
      { whiteouts: [`${GD}/channels/fast-4.16.yaml`, `${GD}/blocked-edges/`] },
    );
    layout.image({ layers: [lower, upper], arch: 'amd64', tag: 'one' });
    await skopeoCopy(layout.dir, 'one', reg, 'ocp/graph-data:latest');

    const server = await startServer({
      registry: { releases: reg.reference('ocp/release'), graphDataImage: `${reg.reference('ocp/graph-data')}:latest` },
    });
    cleanup.add(() => server.close());
    expect([...server.service.current!.channels].sort()).toEqual(['candidate-4.16', 'stable-4.16']);
    // The blocked edge was whited out with its folder (an opaque whiteout): the edge is there.
    expect(edgesOf(await graph(server, 'stable-4.16'))).toEqual(['4.16.0->4.16.1']);
    const first = server.sources[0]!.status.digest;

    // Unchanged tag: nothing fetched but the HEAD.
    const before = (await reg.requests()).length;
    expect(await refreshAll(server.sources)).toBe(false);
    const asked = (await reg.requests()).slice(before).filter((r) => r.path.includes('graph-data'));
    expect(asked.map((r) => r.method)).toEqual(['HEAD']);

    // The tag moves to an image with a link out of the tree: refused whole, the last good tree keeps serving.
    const evil = await layout.layer({}, { symlinks: { [`${GD}/channels/evil.yaml`]: '/etc/passwd' } });
    layout.image({ layers: [lower, upper, evil], arch: 'amd64', tag: 'two' });
    await skopeoCopy(layout.dir, 'two', reg, 'ocp/graph-data:latest');
    await refreshAll(server.sources);
    expect(
      server.sources[0]!.status.lastFailure?.problems.join('\n') ?? server.sources[0]!.status.lastFailure?.message,
    ).toMatch(/leaves/);
    expect(server.sources[0]!.status.digest).toBe(first);

    // A good image under the tag: read again and imported.
    const fast = await layout.layer({ [`${GD}/channels/fast-4.16.yaml`]: channel('fast-4.16', ['4.16.1']) });
    layout.image({ layers: [lower, upper, fast], arch: 'amd64', tag: 'three' });
    await skopeoCopy(layout.dir, 'three', reg, 'ocp/graph-data:latest');
    expect(await refreshAll(server.sources)).toBe(true);
    await server.service.rebuild();
    expect([...server.service.current!.channels].sort()).toEqual(['candidate-4.16', 'fast-4.16', 'stable-4.16']);
    expect(server.sources[0]!.status.lastFailure).toBeUndefined();
  });

  it('honours a whiteout of the graph-data folder itself, serves a link to a file of the tree, and refuses a path through a link', async () => {
    const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
    const layout = new OciLayout(cleanup.dir());
    const old = await layout.layer({
      [`${GD}/version`]: '1.1.0\n',
      [`${GD}/channels/old-4.1.yaml`]: channel('old-4.1', []),
    });
    // `RUN rm -rf /var/lib/cincinnati-graph-data` then `COPY`: the folder is whited out, then written anew.
    const gone = await layout.layer({}, { whiteouts: ['var/lib/cincinnati-graph-data'] });
    const fresh = await layout.layer(
      { [`${GD}/version`]: '1.1.0\n', [`${GD}/shared/stable.yaml`]: channel('stable-4.16', []) },
      { symlinks: { [`${GD}/channels/stable-4.16.yaml`]: '../shared/stable.yaml' } },
    );
    layout.image({ layers: [old, gone, fresh], arch: 'amd64', tag: 'good' });
    await skopeoCopy(layout.dir, 'good', reg, 'ocp/graph-data:good');
    const server = await startServer({ registry: { graphDataImage: `${reg.reference('ocp/graph-data')}:good` } });
    cleanup.add(() => server.close());
    expect(server.sources[0]!.status.lastFailure).toBeUndefined();
    expect([...server.service.current!.channels]).toEqual(['stable-4.16']);

    // A folder made a link, then a file written through it: refused, and nothing is written outside.
    const through = await layout.layer(
      { [`${GD}/channels/x/out/escape.yaml`]: 'x' },
      { symlinks: { [`${GD}/channels/x`]: '../../../../../tmp' } },
    );
    // Written by hand, without folder entries (which would replace the link with a folder, as a tar does).
    const raw = await new Promise<Buffer>((resolve) => {
      const p = pack();
      const chunks: Buffer[] = [];
      p.on('data', (c) => void chunks.push(c as Buffer));
      p.on('end', () => resolve(Buffer.concat(chunks)));
      p.entry({ name: `${GD}/a/g`, type: 'symlink', linkname: `/${GD}/t` });
      p.entry({ name: `${GD}/a/g/out/pwned.txt` }, 'x');
      p.finalize();
    });
    const inside = {
      ...layout.blob(OCI_LAYER_GZIP, gzipSync(raw)),
      diffID: `sha256:${createHash('sha256').update(raw).digest('hex')}`,
    };
    for (const [tag, layer, why] of [
      ['leaving', through, /leaves|through the link/],
      ['through', inside, /through the link/],
    ] as const) {
      layout.image({ layers: [fresh, layer], arch: 'amd64', tag });
      await skopeoCopy(layout.dir, tag, reg, `ocp/graph-data:${tag}`);
      const bad = await startServer({ registry: { graphDataImage: `${reg.reference('ocp/graph-data')}:${tag}` } });
      cleanup.add(() => bad.close());
      expect(bad.sources[0]!.status.lastFailure?.problems.join('\n')).toMatch(why);
    }
  });

  it('hostile finding 6: refuses an image with more than 100,000 entries under the folder, as a tarball is refused', async () => {
    const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
    const layout = new OciLayout(cleanup.dir());
    const files: Record<string, string> = { [`${GD}/version`]: '1.1.0\n' };
    for (let i = 0; i < 100_000; i++) files[`${GD}/raw/metadata/m${i}.json`] = '';
    const many = await layout.layer(files);
    layout.image({ layers: [many], arch: 'amd64', tag: 'many' });
    await skopeoCopy(layout.dir, 'many', reg, 'ocp/graph-data:many');
    const server = await startServer({ registry: { graphDataImage: `${reg.reference('ocp/graph-data')}:many` } });
    cleanup.add(() => server.close());
    expect(server.sources[0]!.status.lastFailure?.problems.join('\n')).toMatch(
      /more than 100000 entries under \/var\/lib\/cincinnati-graph-data\/, the limit of a graph-data tree/,
    );
    expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
  }, 120_000);

  it('an invalid tree in the image is rejected with every problem named by image and file', async () => {
    const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
    const layout = new OciLayout(cleanup.dir());
    const bad = await layout.layer({
      [`${GD}/version`]: '1.1.0\n',
      [`${GD}/channels/stable-4.16.yaml`]: 'name: stable-4.16\nversions: 4.16.0\n',
      [`${GD}/blocked-edges/x.yaml`]: 'to: 4.16.1\nfrom: [\n',
    });
    layout.image({ layers: [bad], arch: 'amd64', tag: 'bad' });
    await skopeoCopy(layout.dir, 'bad', reg, 'ocp/graph-data:bad');
    const server = await startServer({ registry: { graphDataImage: `${reg.reference('ocp/graph-data')}:bad` } });
    cleanup.add(() => server.close());
    const problems = server.sources[0]!.status.lastFailure!.problems;
    expect(
      problems.some((p) => /ocp\/graph-data@sha256:[0-9a-f]{64}: channels\/stable-4\.16\.yaml: versions: /.test(p)),
    ).toBe(true);
    expect(
      problems.some((p) => /ocp\/graph-data@sha256:[0-9a-f]{64}: blocked-edges\/x\.yaml: -: invalid YAML/.test(p)),
    ).toBe(true);
  });
});
