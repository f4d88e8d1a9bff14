// The web page: index.html at / and /ui/, and its content-hashed assets under /ui/assets/, as the
// project's build (scripts/build-ui.mjs) wrote them to dist/ui (answered by uiAssetsApp.ts, made at the
// first request for one: lazyApp.ts). Nothing is fetched from elsewhere.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { lazyRoutes } from '../lazyApp.js';

/** Where the build writes the page: dist/ui at the package root, from src/ or dist/ alike. */
export const UI_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'dist', 'ui');

// The page loads only its own scripts, styles, fonts and API answers.
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-cache',
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; object-src 'none'; " + "base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export async function uiRoutes(fastify: FastifyInstance, { dir = UI_DIR }: { dir?: string }): Promise<void> {
  const indexFile = join(dir, 'index.html');
  const page = existsSync(indexFile) ? readFileSync(indexFile) : undefined;
  const sendPage = async (_request: unknown, reply: FastifyReply) =>
    page
      ? reply.headers(PAGE_HEADERS).send(page)
      : reply.code(503).send({
          kind: 'service_unavailable',
          value: `the web page is not built (no ${indexFile}): run npm run build`,
        });
  if (!page) fastify.log.warn(`the web page is not built (no ${indexFile}): / answers 503 until npm run build`);
  const hide = { schema: { hide: true } };
  fastify.get('/', hide, sendPage);
  fastify.get('/ui', hide, sendPage);
  if (!page) return;
  // One route per file the build wrote, as @fastify/static makes them (uiAssetsApp.ts): a name that is no
  // file is not routed, and is answered as any unknown path.
  const assets = join(dir, 'assets');
  const urls = assetFiles(assets).map((file) => `/ui/assets/${file}`);
  lazyRoutes(fastify, urls, async (app) => (await import('./uiAssetsApp.js')).uiAssets(app, assets));
}

/**
 * The files under `dir` whose names do not start with a dot, links followed, as paths relative to it with '/'
 * between folders (what @fastify/static's glob finds); none when it is missing.
 */
function assetFiles(dir: string, under = ''): string[] {
  if (!existsSync(dir)) return [];
  const files: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.')) continue;
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory()) files.push(...assetFiles(path, `${under}${name}/`));
    else if (stat?.isFile()) files.push(`${under}${name}`);
  }
  return files;
}
