// The OpenAPI document, generated from the route schemas, at /openapi, and Swagger UI at /docs.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

export const openapiPlugin = fp(async (app: FastifyInstance, opts: { version: string }) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'cincy',
        version: opts.version,
        description: 'Cincinnati update graph server for OpenShift-style clusters.',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      tags: [
        { name: 'graph', description: 'The Cincinnati graph clusters read' },
        { name: 'health', description: 'Liveness, readiness and metrics' },
      ],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi', { schema: { hide: true } }, async () => app.swagger());
});
