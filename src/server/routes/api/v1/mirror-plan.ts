// GET /api/v1/mirror-plan: what a disconnected mirror must hold for clusters at some versions to reach a
// target, planned on the served snapshot, with the oc-mirror v2 ImageSetConfiguration for it.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { GraphService } from '../../../../app/graphService.js';
import { ApiError } from '../../../../errors.js';
import { ErrorSchema } from '../../../../schemas/cincinnati.js';
import { MirrorPlanAnswer, MirrorPlanQuery } from '../../../../schemas/paths.js';
import type { PlanningBudget } from './planning.js';

/** More sources than this are refused: each is a path planned. */
const MAX_SOURCES = 200;

export async function mirrorPlanRoutes(
  fastify: FastifyInstance,
  { service, planning }: { service: GraphService; planning: PlanningBudget },
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/mirror-plan', {
    schema: {
      summary: 'Plan what to mirror for clusters to reach a version',
      description:
        'The releases on the best path from each source version to the target (with mode=eus, the EUS-to-EUS ' +
        'path of /api/v1/paths: GA releases through the odd minor between), the sources and the target themselves, and an oc-mirror v2 ' +
        'ImageSetConfiguration that mirrors exactly those and the graph image.',
      tags: ['paths'],
      querystring: MirrorPlanQuery,
      response: { 200: MirrorPlanAnswer, 400: ErrorSchema, 429: ErrorSchema, 503: ErrorSchema },
    },
    handler: async (request, reply) => {
      const q = request.query;
      const from = [...new Set((q.from ?? '').split(',').filter((v) => v !== ''))];
      if (from.length > MAX_SOURCES)
        throw new ApiError('invalid_request', `querystring/from: at most ${MAX_SOURCES} versions, got ${from.length}`);
      const snapshot = service.served();
      planning.charge(request, reply, from.length);
      const { planMirror } = await import('../../../../graph/mirrorPlan.js');
      return planMirror(snapshot.graph, {
        to: q.to,
        from,
        arch: q.arch ?? 'amd64',
        ...(q.channel !== undefined && { channel: q.channel }),
        mode: q.mode ?? 'fewest-hops',
      });
    },
  });
}
