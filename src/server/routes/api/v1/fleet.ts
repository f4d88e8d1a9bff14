// /api/v1/fleet…: the clusters that poll the graph, by channel, arch and version; each of them with
// the updates it is shown; the exposure of the fleet to each risk; the updates clusters were seen to
// take. Cluster ids are sensitive: every route takes a token with the scope fleet:read.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FleetReads } from '../../../../app/fleet/fleetReads.js';
import type { TokenVerifier } from '../../../../app/auth/tokenVerifier.js';
import { ErrorSchema } from '../../../../schemas/cincinnati.js';
import {
  FleetClusters,
  FleetClustersQuery,
  FleetExposure,
  FleetExposureQuery,
  FleetSummary,
  FleetSummaryQuery,
  FleetUpdates,
  FleetUpdatesQuery,
} from '../../../../schemas/fleet.js';
import { requireReadScope } from '../../../auth.js';
import { BEARER_AUTH } from '../../adminRouteOptions.js';

const ERRORS = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 503: ErrorSchema };

export async function fleetRoutes(
  fastify: FastifyInstance,
  { fleet, tokens }: { fleet: FleetReads; tokens: TokenVerifier },
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const onRequest = requireReadScope(tokens, 'fleet:read');
  const common = { tags: ['fleet'], security: BEARER_AUTH };
  app.get('/fleet', {
    onRequest,
    schema: {
      ...common,
      summary: 'The fleet: clusters by channel, arch and version; how many are stale, stranded, behind',
      querystring: FleetSummaryQuery,
      response: { 200: FleetSummary, ...ERRORS },
    },
    handler: (request) => fleet.summary(request.query),
  });
  app.get('/fleet/clusters', {
    onRequest,
    schema: {
      ...common,
      summary: 'The clusters, filtered, each with its record and the updates it is shown right now',
      querystring: FleetClustersQuery,
      response: { 200: FleetClusters, ...ERRORS },
    },
    handler: (request) => fleet.clusters(request.query),
  });
  app.get('/fleet/exposure', {
    onRequest,
    schema: {
      ...common,
      summary: 'For each risk, the clusters shown it on a conditional update right now, by channel and version',
      querystring: FleetExposureQuery,
      response: { 200: FleetExposure, ...ERRORS },
    },
    handler: (request) => fleet.exposure(request.query),
  });
  app.get('/fleet/updates', {
    onRequest,
    schema: {
      ...common,
      summary: 'Updates clusters were seen to take (polls at one version, then another), per edge',
      querystring: FleetUpdatesQuery,
      response: { 200: FleetUpdates, ...ERRORS },
    },
    handler: (request) => fleet.updates(request.query),
  });
}
