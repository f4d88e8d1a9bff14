// The limits the server object carries, from the serve settings: the connection cap, and the bound on
// closing (the rest of a connection's limits are set where the server is created, connectionLimits.ts).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { HttpLimits } from '../../config.js';

export const connectionsPlugin = fp(async (app: FastifyInstance, { limits }: { limits: HttpLimits }) => {
  app.server.maxConnections = limits.maxConnections;
  // Node stops checking request timeouts once the server closes, so a slow client would hold the
  // close open for as long as it likes: requests in flight get shutdownTimeout, then every
  // connection left is closed.
  app.addHook('preClose', (done) => {
    const timer = setTimeout(() => app.server.closeAllConnections(), limits.shutdownTimeout * 1000);
    app.server.once('close', () => clearTimeout(timer));
    // A server that never listened never emits 'close': the timer alone keeps no process alive.
    timer.unref();
    done();
  });
});
