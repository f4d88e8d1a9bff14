// The OpenAPI document, generated from the route schemas, at /openapi, and Swagger UI at /docs. The routes
// are collected as they are registered (this plugin comes before them); the app that answers both
// (openapiApp.ts: @fastify/swagger, @fastify/swagger-ui) is made at the first request (lazyApp.ts).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { lazyRoutes } from '../lazyApp.js';
import type { DocumentedRoute } from './openapiApp.js';

/** The URLs the app of openapiApp.ts answers: the document, and Swagger UI's routes (@fastify/swagger-ui's lib/routes.js). */
export const DOCUMENT_URLS = [
  '/openapi',
  '/docs',
  '/docs/json',
  '/docs/yaml',
  '/docs/static/index.html',
  '/docs/static/swagger-initializer.js',
  '/docs/static/*',
];

export const openapiPlugin = fp(async (app: FastifyInstance, opts: { version: string }) => {
  const routes: DocumentedRoute[] = [];
  app.addHook('onRoute', (route) => {
    // Neither HEAD routes nor hidden ones are documented (@fastify/swagger leaves them out).
    if ([route.method].flat().every((m) => m === 'HEAD') || route.schema?.hide === true) return;
    const { method, url, schema, config, constraints } = route;
    routes.push({ method, url, schema, config, constraints });
  });
  lazyRoutes(app, DOCUMENT_URLS, async (docs) =>
    (await import('./openapiApp.js')).openapiDocs(docs, opts.version, routes),
  );
});
