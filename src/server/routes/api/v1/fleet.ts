// /api/v1/fleet…: the clusters that poll the graph, by channel, arch and version; each of them with
// the updates it is shown; the exposure of the fleet to each risk; the updates clusters were seen to
// take. Cluster ids are sensitive: every read takes a token with the scope fleet:read. Clusters report
// their own state with a token of the scope fleet:report bound to their id.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FleetReads } from '../../../../app/fleet/fleetReads.js';
import type { ReportIntake } from '../../../../app/fleet/reportIntake.js';
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
import { FleetReportAnswer, FleetReportBody, REPORT_BODY_LIMIT } from '../../../../schemas/fleetReports.js';
import { refuseOverLimit, requireReadScope, requireScope } from '../../../auth.js';
import { BEARER_AUTH } from '../../adminRouteOptions.js';

const ERRORS = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 503: ErrorSchema };
const WRITE_ERRORS = { ...ERRORS, 413: ErrorSchema, 415: ErrorSchema, 429: ErrorSchema, 507: ErrorSchema };

export async function fleetRoutes(
  fastify: FastifyInstance,
  { fleet, reports, tokens }: { fleet: FleetReads; reports: ReportIntake; tokens: TokenVerifier },
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const onRequest = requireReadScope(tokens, 'fleet:read');
  const common = { tags: ['fleet'], security: BEARER_AUTH };
  /**
   * Sends what `make` answers, serialized by the route's schema once for every caller asking the same
   * question (route and query) while the answer is kept: FleetReads.answer.
   */
  const shared = async (request: FastifyRequest, reply: FastifyReply, make: () => Promise<unknown>): Promise<void> => {
    const key = `${request.routeOptions.url} ${JSON.stringify(request.query)}`;
    const json = await fleet.answer(key, async () => Buffer.from(reply.serialize(await make()) as string));
    await reply.type('application/json; charset=utf-8').send(json);
  };
  app.get('/fleet', {
    onRequest,
    schema: {
      ...common,
      summary: 'The fleet: clusters by channel, arch and version; how many are stale, stranded, behind',
      querystring: FleetSummaryQuery,
      response: { 200: FleetSummary, ...ERRORS },
    },
    handler: (request, reply) => shared(request, reply, () => fleet.summary(request.query)),
  });
  app.get('/fleet/clusters', {
    onRequest,
    schema: {
      ...common,
      summary: 'The clusters, filtered, each with its record and the updates it is shown right now',
      querystring: FleetClustersQuery,
      response: { 200: FleetClusters, ...ERRORS },
    },
    handler: (request, reply) => shared(request, reply, () => fleet.clusters(request.query)),
  });
  app.get('/fleet/exposure', {
    onRequest,
    schema: {
      ...common,
      summary: 'For each risk, the clusters shown it on a conditional update right now, by channel and version',
      querystring: FleetExposureQuery,
      response: { 200: FleetExposure, ...ERRORS },
    },
    handler: (request, reply) => shared(request, reply, () => fleet.exposure(request.query)),
  });
  app.post('/fleet/reports', {
    onRequest: [
      requireScope(tokens, 'fleet:report'),
      // The cluster's own limit, from the headers: a refused report's body is never read.
      async (request, reply) => refuseOverLimit(reports.admit(request.verifiedToken!), reply),
    ],
    bodyLimit: REPORT_BODY_LIMIT,
    schema: {
      ...common,
      summary: "A cluster's report of itself: its ClusterVersion and ClusterOperators, with a token bound to its id",
      description:
        'Takes the objects as the API server returns them; keeps the conditions and history an update is judged by (cincy report sends them). The token (scope fleet:report) names one cluster id; a report for another is 403.',
      body: FleetReportBody,
      response: { 200: FleetReportAnswer, ...WRITE_ERRORS },
    },
    handler: (request) => reports.take(request.body, request.verifiedToken!),
  });
  app.get('/fleet/updates', {
    onRequest,
    schema: {
      ...common,
      summary:
        'Updates clusters were seen to start (by polls or reports), per edge, and what became of the reported ones',
      querystring: FleetUpdatesQuery,
      response: { 200: FleetUpdates, ...ERRORS },
    },
    handler: (request, reply) => shared(request, reply, () => fleet.updates(request.query)),
  });
}
