// The app that answers /ui/assets/ (ui.ts), made at the first request for an asset (lazyApp.ts): each file of
// the build's assets folder, streamed, brotli or gzip when the client takes it and the build wrote it, cached
// for a year (their names change with their content). Loaded only then, with @fastify/static.
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

export async function uiAssets(app: FastifyInstance, root: string): Promise<void> {
  // An asset is answered brotli, gzip or plain under one name: a shared cache must key on the encoding.
  // The server's CORS hook has put its own Vary on the response already (lazyApp.ts); both are kept.
  app.addHook('onSend', async (_request, reply) => {
    const vary = reply.raw.getHeader('vary');
    reply.header('vary', vary ? `${String(vary)}, Accept-Encoding` : 'Accept-Encoding');
  });
  await app.register(fastifyStatic, {
    root,
    prefix: '/ui/assets/',
    index: false,
    preCompressed: true,
    // The server routes only the files ui.ts listed at start: no second walk of the folder here.
    wildcard: true,
    immutable: true,
    maxAge: '365d',
    setHeaders: (res) => res.setHeader('x-content-type-options', 'nosniff'),
  });
}
