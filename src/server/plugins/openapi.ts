// The OpenAPI document, generated from the route schemas, at /openapi, and Swagger UI at /docs.
import { SCOPES } from '../../app/auth/scopes.js';
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
        { name: 'releases', description: 'Release records (admin)' },
        { name: 'channels', description: 'Public channels and promotion (admin)' },
        {
          name: 'internal channels',
          description: 'The promotion ladder: candidate, fast, stable (admin; never served)',
        },
        { name: 'risks', description: 'Conditional risks and hard blocks on edges (admin)' },
        { name: 'audit', description: 'Who changed what' },
        { name: 'changes', description: 'Graph history: every change to the served graph, per channel and arch' },
        { name: 'signatures', description: 'Release signatures: ingest, and the signature store clusters read' },
        { name: 'health', description: 'Liveness, readiness and metrics' },
        { name: 'webhooks', description: 'Signed deliveries of changes to a URL (admin, webhooks:write)' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: `A JWT with the scopes a route needs, from ${SCOPES.join(', ')} (cincy token create)`,
          },
        },
      },
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // Swagger UI's own policy (its scripts by hash), framed by no page, and with nothing from elsewhere:
    // no https: fonts or styles, no upgrade of requests a plain-http server cannot answer.
    staticCSP: true,
    transformStaticCSP: (header: string) =>
      header
        .replace("frame-ancestors 'self'", "frame-ancestors 'none'")
        .replace(/ https:/g, '')
        .replace(/ validator\.swagger\.io/, '')
        // Swagger UI sets style attributes as it renders: styles inline (never scripts) are allowed, which
        // a browser ignores while a hash is listed, so the directive is replaced whole.
        .replace(/style-src [^;]*;/, "style-src 'self' 'unsafe-inline';")
        .replace(/\s*upgrade-insecure-requests;?/, ''),
    uiHooks: {
      onRequest: (_request, reply, done) => {
        reply.header('x-content-type-options', 'nosniff');
        reply.header('x-frame-options', 'DENY');
        reply.header('referrer-policy', 'no-referrer');
        done();
      },
    },
  });
  app.get('/openapi', { schema: { hide: true } }, async () => app.swagger());
});
