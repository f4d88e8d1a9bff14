// A registry that misbehaves on purpose, for the attacks of a hostile or broken registry (the project's
// issue 30): endless tag lists, redirects to other hosts, error bodies meant to leak, foreign token
// realms, layers that trickle, never end or unpack to gigabytes, digests that change every scrape, names
// that are not tags, a tag that flips between two images, and a graph-data image of too many entries.
// Without an attack it is a plain distribution registry serving two release images (`ocp/release`) and
// a graph-data image (`ocp/graph-data:latest`) naming them in one channel, built in memory.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGzip, gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { OCI_LAYER_GZIP, OCI_MANIFEST } from './ociLayout.js';
import { releaseMetadata } from './releaseImages.js';
import { tarHeader, tarOf, type TarEntry } from './tar.js';

export type Attack =
  | { kind: 'none' }
  /** Each tag-list page holds `perPage` new tags and links to another page, without end. */
  | { kind: 'endless-tags'; perPage: number }
  /** The two releases' tags and this many more, on pages of at most 10,000. */
  | { kind: 'many-tags'; count: number }
  /** The tag list also holds these names (which are not tags). */
  | { kind: 'bad-tags'; names: string[] }
  /** Every manifest and blob request answered `302` to `to` followed by the path asked. */
  | { kind: 'redirect'; to: string; only?: 'blobs' }
  /** Manifests answered 500 with this body. */
  | { kind: 'error-body'; body: string }
  /** Every request without a token answered 401 with a Bearer challenge naming this realm. */
  | { kind: 'realm'; realm: string }
  /** Layer blobs: headers at once, then one byte every `everyMs`. */
  | { kind: 'trickle-blob'; everyMs: number }
  /** Layer blobs: a gzip stream of a tar whose one file never ends. */
  | { kind: 'endless-blob' }
  /** Every tag list makes every tag point at a manifest never seen before. */
  | { kind: 'new-digests' }
  /** The release layer of 4.16.1 holds, before its metadata, a file of this many zero bytes (a multiple of 64 MiB). */
  | { kind: 'bomb'; bytes: number }
  /** Each tag list moves the tag of 4.16.1 to the other of two images. */
  | { kind: 'alternate' }
  /** Each HEAD of `ocp/graph-data:latest` finds it on the other of two images. */
  | { kind: 'alternate-graph-data' }
  /** `ocp/graph-data:latest` moves to an image with this many files under the graph-data folder. */
  | { kind: 'many-entries'; files: number };

export interface HostileRegistry {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** `127.0.0.1:PORT` */
  host: string;
  /** `http://127.0.0.1:PORT/ocp/release`, as --releases takes it. */
  repository: string;
  /** `http://127.0.0.1:PORT/ocp/graph-data:latest`, as --graph-data-image takes it. */
  graphDataImage: string;
  /** Every request, `METHOD path?query`, in order. */
  requests: string[];
  attack: Attack;
  /** Bytes sent by the endless and trickling blobs so far. */
  streamed: number;
  close(): Promise<void>;
}

const REPO = 'ocp/release';
const GRAPH_DATA_REPO = 'ocp/graph-data';
const GD = 'var/lib/cincinnati-graph-data';
const MTIME = new Date('2024-01-01T00:00:00Z');

const sha256 = (b: Buffer): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/** A gzipped tar of `files`, in the order given. */
const gzippedTar = (files: Record<string, string>): Buffer =>
  gzipSync(
    tarOf(
      Object.entries(files).map(([name, data]) => ({ name, data })),
      MTIME,
    ),
  );

const CHUNK = 64 * 1024 * 1024;

/**
 * A layer holding, before the release metadata, a file of `bytes` zero bytes (a multiple of 64 MiB): gzip
 * members laid end to end (as gzip allows), the 64 MiB of zeros compressed once and repeated, so 8 GiB of
 * content costs 8 MB and no time to make.
 */
function bombLayer(bytes: number, metadata: string): Buffer {
  const zeros = gzipSync(Buffer.alloc(CHUNK), { level: 9 });
  return Buffer.concat([
    gzipSync(tarHeader({ name: 'release-manifests/zeros' }, bytes, MTIME)),
    ...Array.from({ length: Math.ceil(bytes / CHUNK) }, () => zeros),
    gzippedTar({ 'release-manifests/release-metadata': metadata }),
  ]);
}

/** A gzipped tar of the graph-data folder with `files` empty files beside a valid tree. */
function manyEntriesLayer(files: number): Buffer {
  const entries = function* (): Generator<TarEntry> {
    yield { name: `${GD}/version`, data: '1.1.0\n' };
    for (let i = 0; i < files; i++) yield { name: `${GD}/raw/metadata/m${i}.json` };
  };
  return gzipSync(tarOf(entries(), MTIME), { level: 1 });
}

interface Image {
  manifest: Buffer;
  digest: string;
}

export async function startHostileRegistry(
  cleanup: { add(f: () => unknown): void },
  attack: Attack = { kind: 'none' },
): Promise<HostileRegistry> {
  const blobs = new Map<string, Buffer>();
  const layers = new Set<string>();
  const addBlob = (b: Buffer, layer = false): string => {
    const d = sha256(b);
    blobs.set(d, b);
    if (layer) layers.add(d);
    return d;
  };
  const config = Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', rootfs: { type: 'layers' } }));
  const configDigest = addBlob(config);
  const image = (layer: Buffer, annotations?: Record<string, string>): Image => {
    const layerDigest = addBlob(layer, true);
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: OCI_MANIFEST,
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: configDigest, size: config.length },
        layers: [{ mediaType: OCI_LAYER_GZIP, digest: layerDigest, size: layer.length }],
        ...(annotations && { annotations }),
      }),
    );
    return { manifest, digest: sha256(manifest) };
  };
  const releaseLayer = (version: string, previous: string[], url?: string): Buffer =>
    gzippedTar({
      'release-manifests/release-metadata': releaseMetadata({ version, previous, ...(url && { metadata: { url } }) }),
    });
  const base = {
    '4.16.0-x86_64': image(releaseLayer('4.16.0', [])),
    '4.16.1-x86_64': image(releaseLayer('4.16.1', ['4.16.0'])),
  };
  const flipped = image(releaseLayer('4.16.1', ['4.16.0'], 'https://errata.example.com/flipped'));
  let tags: Record<string, Image> = { ...base };
  /** A graph-data image of one channel, stable-4.16, holding `versions`. */
  const graphDataOf = (versions: string): Image =>
    image(
      gzippedTar({
        [`${GD}/version`]: '1.1.0\n',
        [`${GD}/channels/stable-4.16.yaml`]: `name: stable-4.16\nversions: [${versions}]\n`,
      }),
    );
  const graphData = graphDataOf('4.16.0, 4.16.1');
  const otherGraphData = graphDataOf('4.16.0');
  let heads = 0;
  let many: Image | undefined;
  /** What `ocp/graph-data:latest` is now (`head`: asked by a HEAD, which moves an alternating tag). */
  const graphDataImage = async (head = false): Promise<Image> => {
    const a = state.attack;
    if (a.kind === 'alternate-graph-data') {
      if (head) heads += 1;
      return heads % 2 === 0 ? graphData : otherGraphData;
    }
    if (a.kind !== 'many-entries') return graphData;
    many ??= image(manyEntriesLayer(a.files));
    return many;
  };
  let generation = 0;
  const byDigest = (): Map<string, Image> => new Map(Object.values(tags).map((i) => [i.digest, i]));

  const state: HostileRegistry = {
    url: '',
    host: '',
    repository: '',
    graphDataImage: '',
    requests: [],
    attack,
    streamed: 0,
    close: async () => {},
  };
  let bomb: Image | undefined;

  const tagList = async (url: URL, res: ServerResponse): Promise<void> => {
    const a = state.attack;
    generation += 1;
    if (a.kind === 'new-digests')
      tags = Object.fromEntries(
        Object.entries(base).map(([t, i]) => [
          t,
          image(blobs.get(JSON.parse(i.manifest.toString()).layers[0].digest as string)!, {
            generation: String(generation),
          }),
        ]),
      );
    else if (a.kind === 'alternate') tags = { ...base, ...(generation % 2 === 0 && { '4.16.1-x86_64': flipped }) };
    else if (a.kind === 'bomb') {
      bomb ??= image(bombLayer(a.bytes, releaseMetadata({ version: '4.16.1', previous: ['4.16.0'] })));
      tags = { ...base, '4.16.1-x86_64': bomb };
    } else tags = { ...base };
    const page = Number(url.searchParams.get('page') ?? '0');
    let names: string[];
    let more = false;
    if (a.kind === 'endless-tags') {
      names = Array.from({ length: a.perPage }, (_, i) => `t${page}-${i}`);
      more = true;
    } else if (a.kind === 'many-tags') {
      const all = a.count + 2;
      const from = page * 10_000;
      names = Array.from({ length: Math.min(10_000, all - from) }, (_, i) =>
        from + i < 2 ? Object.keys(base)[from + i]! : `x${from + i}`,
      );
      more = from + 10_000 < all;
    } else names = [...Object.keys(tags), ...(a.kind === 'bad-tags' ? a.names : [])];
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (more) headers.link = `</v2/${REPO}/tags/list?n=1000&page=${page + 1}>; rel="next"`;
    res.writeHead(200, headers).end(JSON.stringify({ name: REPO, tags: names }));
  };

  const blob = (digest: string, res: ServerResponse, head: boolean): void => {
    const a = state.attack;
    const data = blobs.get(digest);
    if (!data) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":[]}');
    if (layers.has(digest) && a.kind === 'trickle-blob') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(data.length) });
      let at = 0;
      const timer = setInterval(() => {
        if (at >= data.length - 1 || res.destroyed) return clearInterval(timer);
        res.write(data.subarray(at, at + 1));
        at += 1;
        state.streamed += 1;
      }, a.everyMs);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (layers.has(digest) && a.kind === 'endless-blob') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const p = pack();
      const gzip = createGzip({ level: 1 });
      p.pipe(gzip).pipe(res);
      const file = p.entry({ name: 'release-manifests/endless', size: 2 ** 40, mtime: MTIME });
      const zeros = Buffer.alloc(1024 * 1024);
      const write = (): void => {
        while (!res.destroyed) {
          state.streamed += zeros.length;
          if (!file.write(zeros)) return void file.once('drain', write);
        }
      };
      res.on('close', () => {
        p.destroy();
        gzip.destroy();
      });
      write();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(data.length) });
    res.end(head ? undefined : data);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    state.requests.push(`${req.method} ${req.url}`);
    const url = new URL(req.url!, 'http://registry');
    const a = state.attack;
    if (url.pathname === '/v2/' || url.pathname === '/v2') return void res.writeHead(200).end('{}');
    if (a.kind === 'realm' && !req.headers.authorization?.startsWith('Bearer '))
      return void res
        .writeHead(401, { 'www-authenticate': `Bearer realm="${a.realm}",service="hostile"` })
        .end('{"errors":[{"code":"UNAUTHORIZED","message":"token wanted"}]}');
    const m = /^\/v2\/(.+)\/(tags\/list|manifests\/([^/]+)|blobs\/([^/]+))$/.exec(url.pathname);
    if (m?.[1] === GRAPH_DATA_REPO && m[3]) {
      const gd = await graphDataImage(req.method === 'HEAD' && m[3] === 'latest');
      const found = m[3] === 'latest' ? gd : [graphData, otherGraphData, gd].find((i) => i.digest === m[3]);
      if (!found) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":[]}');
      res.writeHead(200, { 'content-type': OCI_MANIFEST, 'docker-content-digest': found.digest });
      return void res.end(req.method === 'HEAD' ? undefined : found.manifest);
    }
    if (m?.[1] === GRAPH_DATA_REPO && m[4]) return blob(m[4], res, req.method === 'HEAD');
    if (!m || m[1] !== REPO)
      return void res
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"errors":[{"code":"NAME_UNKNOWN"}]}');
    if (m[2] === 'tags/list') return tagList(url, res);
    if (a.kind === 'redirect' && (a.only !== 'blobs' || m[4]))
      return void res.writeHead(302, { location: `${a.to}${url.pathname}` }).end('moved');
    if (m[4]) return blob(m[4], res, req.method === 'HEAD');
    if (a.kind === 'error-body') return void res.writeHead(500, { 'content-type': 'text/plain' }).end(a.body);
    const ref = decodeURIComponent(m[3]!);
    const found = tags[ref] ?? byDigest().get(ref);
    if (!found)
      return void res
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"errors":[{"code":"MANIFEST_UNKNOWN"}]}');
    res.writeHead(200, {
      'content-type': OCI_MANIFEST,
      'docker-content-digest': found.digest,
      'content-length': String(found.manifest.length),
    });
    res.end(req.method === 'HEAD' ? undefined : found.manifest);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(500).end(err.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  state.host = `127.0.0.1:${port}`;
  state.url = `http://${state.host}`;
  state.repository = `${state.url}/${REPO}`;
  state.graphDataImage = `${state.url}/${GRAPH_DATA_REPO}:latest`;
  state.close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  cleanup.add(() => state.close());
  return state;
}

/** A plain HTTP server that records what reaches it (and answers `body`), to show a request went there or not. */
export async function startRecorder(
  cleanup: { add(f: () => unknown): void },
  body = 'SECRET-FROM-ELSEWHERE',
): Promise<{ url: string; host: string; requests: Array<{ url: string; authorization?: string }> }> {
  const requests: Array<{ url: string; authorization?: string }> = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url!, ...(req.headers.authorization && { authorization: req.headers.authorization }) });
    res.writeHead(500, { 'content-type': 'text/plain' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `http://${host}`, host, requests };
}
