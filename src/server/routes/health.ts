// Liveness and readiness: /livez answers 200 while the process serves; /readyz answers 200 once a
// graph is served (after a restart, the graph the store held, while the tree given at start is still
// imported: `importing` names it) and every registry source was read once (still 200 when a later build, import or
// scrape failed, or when the database cannot be reached: its body reports it, and the last graph keeps
// serving), 503 before (with the reason when the database cannot be reached at start), and 503 with
// a reason when signatures are required and every release is withheld for want of one. A TLS
// certificate expired or not valid yet is said in `certificate` (ready all the same: it still serves).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '#typebox';
import type { GraphService } from '../../app/graphService.js';
import { certificateProblem } from '../../certificateProblem.js';
import type { TlsMaterial } from '../tls.js';
import { ReadinessSchema, type SourceStatus } from '../../schemas/health.js';

/** A source's status with the age of its read under way, if one is. */
const withReadingAge = (s: SourceStatus): SourceStatus =>
  s.readingSince ? { ...s, readingForSeconds: (Date.now() - Date.parse(s.readingSince)) / 1000 } : s;

export async function healthRoutes(
  fastify: FastifyInstance,
  opts: { service: GraphService; tls?: { material: TlsMaterial } },
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/livez',
    {
      schema: { summary: 'Liveness', tags: ['health'], response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
    },
    async () => ({ status: 'ok' as const }),
  );
  app.get('/readyz', {
    schema: {
      summary:
        'Readiness: 200 once a graph is served and the registry sources were read (also when a later read failed), 503 before',
      tags: ['health'],
      response: { 200: ReadinessSchema, 503: ReadinessSchema },
    },
    handler: async (_request, reply) => {
      const s = opts.service;
      const snap = s.current;
      // Not ready until every registry source has been read once (now, or by an earlier run on this store).
      // With --require-signatures, a store whose every release is withheld serves nothing: not ready, and why.
      const allWithheld =
        snap !== undefined && s.signatures.required && snap.graph.nodes.length === 0 && snap.withheld > 0;
      const ready = snap !== undefined && s.sources.every((src) => src.ready) && !s.applyingFirstRead && !allWithheld;
      const reason = allWithheld
        ? 'nothing is served: --require-signatures withholds every release, and none has a signature ' +
          'that verifies against --trust-keys (upload them: cincy signatures add)'
        : snap === undefined
          ? s.startupProblem
          : undefined;
      const certificate = opts.tls && certificateProblem(opts.tls.material, Date.now());
      const body = {
        status: ready ? ('ready' as const) : ('not ready' as const),
        ...(reason && { reason }),
        ...((s.databaseProblem ?? s.store.fullProblem) && { database: s.databaseProblem ?? s.store.fullProblem }),
        ...(s.demo && { demo: true as const }),
        ...(s.leadership && { leader: s.leadership.leading }),
        ...(snap && {
          graph: {
            builtAt: snap.builtAt.toISOString(),
            releases: snap.graph.nodes.length,
            channels: snap.channels.size,
            buildSeconds: snap.buildSeconds,
          },
        }),
        ...(s.lastBuildFailure && { lastBuildFailure: s.lastBuildFailure }),
        ...(s.lastImportFailure && { lastImportFailure: s.lastImportFailure }),
        ...(s.importing && { importing: s.importing }),
        ...(s.sources.length && { sources: s.sources.map(withReadingAge) }),
        ...(certificate && { certificate }),
      };
      return reply.code(ready ? 200 : 503).send(body);
    },
  });
}
