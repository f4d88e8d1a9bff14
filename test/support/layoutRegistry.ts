// A read-only registry in this process for the service tier: one repository whose tags name manifests of an
// OCI layout's blob store (as test/support/ocMirror.ts builds them, Docker media types included), served
// with the distribution API's tag list, manifests (GET and HEAD, by tag or digest) and blobs.
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Descriptor, OciLayout } from './ociLayout.js';

export interface LayoutRegistry {
  /** `http://127.0.0.1:PORT/REPOSITORY`, as --releases takes it. */
  repository: string;
  /** Every request, `METHOD path`, in order. */
  requests: string[];
}

export async function serveLayout(
  layout: OciLayout,
  repository: string,
  tags: Record<string, Descriptor>,
  cleanup: { add(f: () => unknown): void },
): Promise<LayoutRegistry> {
  const requests: string[] = [];
  const blob = (digest: string): Buffer | undefined => {
    if (!/^sha256:[0-9a-f]{64}$/.test(digest)) return undefined;
    const path = join(layout.dir, 'blobs', 'sha256', digest.slice('sha256:'.length));
    return existsSync(path) ? readFileSync(path) : undefined;
  };
  const mediaTypes = new Map(Object.values(tags).map((d) => [d.digest, d.mediaType]));
  const prefix = `/v2/${repository}/`;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://registry').pathname;
    requests.push(`${req.method} ${path}`);
    const notFound = (): void => void res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":[]}');
    if (path === '/v2/') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    if (!path.startsWith(prefix)) return notFound();
    const rest = path.slice(prefix.length);
    if (rest === 'tags/list')
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ name: repository, tags: Object.keys(tags) }));
    const [kind, ref] = rest.split('/') as [string, string | undefined];
    if (kind === 'manifests' && ref) {
      const d = Object.hasOwn(tags, ref) ? tags[ref] : Object.values(tags).find((t) => t.digest === ref);
      // A manifest by digest that no tag names (an image of a manifest list): its own document says its type.
      const digest = d?.digest ?? ref;
      const bytes = blob(digest);
      if (!bytes) return notFound();
      const type = mediaTypes.get(digest) ?? (JSON.parse(bytes.toString()) as { mediaType: string }).mediaType;
      res.writeHead(200, { 'content-type': type, 'docker-content-digest': digest, 'content-length': bytes.length });
      return void res.end(req.method === 'HEAD' ? undefined : bytes);
    }
    if (kind === 'blobs' && ref) {
      const bytes = blob(ref);
      if (!bytes) return notFound();
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length });
      return void res.end(req.method === 'HEAD' ? undefined : bytes);
    }
    notFound();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { repository: `http://127.0.0.1:${port}/${repository}`, requests };
}
