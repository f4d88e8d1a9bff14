// A proxy in front of a real test registry, for behaviour distribution 2.8 does not have but other
// registries do (paged tag lists, a Bearer token realm, 429s and stalls): `intercept` answers what it wants
// to, and everything else is passed through to the registry.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestRegistry } from './registry.js';

export type Intercept = (
  req: IncomingMessage,
  url: URL,
  res: ServerResponse,
  forward: () => Promise<{ status: number; headers: Record<string, string>; body: Buffer }>,
) => Promise<boolean> | boolean;

export interface RegistryProxy {
  /** 'http://127.0.0.1:PORT' */
  url: string;
  port: number;
}

export async function proxyRegistry(
  reg: TestRegistry,
  intercept: Intercept,
  cleanup: { add(f: () => unknown): void },
): Promise<RegistryProxy> {
  const forward = async (req: IncomingMessage, url: URL) => {
    const upstream = await fetch(`${reg.url}${url.pathname}${url.search}`, {
      method: req.method,
      headers: { accept: req.headers.accept ?? '*/*' },
    });
    const headers = Object.fromEntries(
      [...upstream.headers].filter(([k]) => k !== 'content-length' && k !== 'content-encoding'),
    );
    return { status: upstream.status, headers, body: Buffer.from(await upstream.arrayBuffer()) };
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://proxy');
    void (async () => {
      if (await intercept(req, url, res, () => forward(req, url))) return;
      const r = await forward(req, url);
      res.writeHead(r.status, r.headers).end(req.method === 'HEAD' ? undefined : r.body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port };
}
