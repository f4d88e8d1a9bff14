// The graph fast path (graphFastPath.ts) answers before fastify routes a request; once the app starts
// closing it is turned off, so that fastify answers 503 to whatever still arrives.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { GraphFastPath } from '../graphFastPath.js';

export const fastPathPlugin = fp(async (app: FastifyInstance, { fastPath }: { fastPath: GraphFastPath }) => {
  app.addHook('preClose', (done) => {
    fastPath.enabled = false;
    done();
  });
});
