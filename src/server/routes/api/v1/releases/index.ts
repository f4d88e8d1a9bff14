// /api/v1/releases: the release records (releases.ts: add, list, read, delete) and the signatures of
// their payloads (signatures.ts: ingest), under the prefix this folder is registered at.
import type { FastifyInstance } from 'fastify';
import type { AdminRouteOptions } from '../../../adminRouteOptions.js';
import { releaseRecordRoutes } from './releases.js';
import { signatureIngestRoutes } from './signatures.js';

export async function releaseRoutes(app: FastifyInstance, { admin, tokens }: AdminRouteOptions): Promise<void> {
  // The options are named one by one: those this plugin was given hold its prefix.
  await app.register(releaseRecordRoutes, { admin, tokens });
  await app.register(signatureIngestRoutes, { admin, tokens });
}
