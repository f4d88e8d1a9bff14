// The web page: index.html at / and /ui/, and its content-hashed assets under /ui/assets/, as the
// project's build (scripts/build-ui.mjs) wrote them to dist/ui. Nothing is fetched from elsewhere.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

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
  // An asset is answered brotli, gzip or plain under one name: a shared cache must key on the encoding.
  fastify.addHook('onSend', async (request, reply) => {
    if (!request.url.startsWith('/ui/assets/')) return;
    const vary = reply.getHeader('vary');
    reply.header('vary', vary ? `${String(vary)}, Accept-Encoding` : 'Accept-Encoding');
  });
  await fastify.register(fastifyStatic, {
    root: join(dir, 'assets'),
    prefix: '/ui/assets/',
    decorateReply: false,
    index: false,
    preCompressed: true,
    wildcard: false,
    immutable: true,
    maxAge: '365d',
    setHeaders: (res) => res.setHeader('x-content-type-options', 'nosniff'),
  });
}
