// /api/v1: the API beside the Cincinnati graph, one file (or folder) per resource, each registered
// under the prefix this folder is registered at: the questions answered on the served graph (paths,
// mirror-plan, explain, catalog), the admin resources (releases, channels and internal-channels,
// risks, audit), the fleet that polls the graph, the graph's history (changes), the phased rollouts
// and the webhooks that deliver changes. The order of registration is the order of the OpenAPI document's paths.
import type { FastifyInstance } from 'fastify';
import type { AdminServices } from '../../../../app/admin/services.js';
import type { TokenVerifier } from '../../../../app/auth/tokenVerifier.js';
import { FleetReads } from '../../../../app/fleet/fleetReads.js';
import { storeQueries } from '../../../../app/fleet/fleetQueries.js';
import { ReportIntake } from '../../../../app/fleet/reportIntake.js';
import type { GraphService } from '../../../../app/graphService.js';
import type { RolloutMonitor } from '../../../../app/rollouts/monitor.js';
import { RolloutReads } from '../../../../app/rollouts/rolloutReads.js';
import type { Webhooks } from '../../../../app/webhooks/service.js';
import type { Clock } from '../../../../clock.js';
import { auditRoutes } from './audit.js';
import { catalogRoutes } from './catalog.js';
import { changeRoutes } from './changes.js';
import { channelRoutes } from './channels/index.js';
import { explainRoutes } from './explain.js';
import { fleetRoutes } from './fleet.js';
import { mirrorPlanRoutes } from './mirror-plan.js';
import { pathRoutes } from './paths.js';
import { DEFAULT_PLANS_PER_MINUTE, PlanningBudget } from './planning.js';
import { releaseRoutes } from './releases/index.js';
import { riskRoutes } from './risks.js';
import { rolloutRoutes } from './rollouts.js';
import { webhookRoutes } from './webhooks.js';

export interface ApiV1Options {
  service: GraphService;
  admin: AdminServices;
  tokens: TokenVerifier;
  /** The clock the fleet's reads are made on, when they are made here. */
  clock: Clock;
  /** The fleet API's reads (none: what the store holds, read here). */
  fleet?: FleetReads;
  /** The webhooks API (none: its routes are not served). */
  webhooks?: Webhooks;
  /** Paths each client address may plan a minute (default: serve's). */
  planRateLimit?: number;
  /** The rollout monitor: its counts, and the reports it is told of (none: rollouts are shown uncounted). */
  rollouts?: RolloutMonitor;
}

export async function apiV1Routes(app: FastifyInstance, opts: ApiV1Options): Promise<void> {
  const { service, admin, tokens } = opts;
  // One budget for both: a client cannot plan twice as much by using each.
  const planning = new PlanningBudget(opts.planRateLimit ?? DEFAULT_PLANS_PER_MINUTE, opts.clock);
  await app.register(pathRoutes, { service, planning });
  await app.register(mirrorPlanRoutes, { service, planning });
  await app.register(explainRoutes, { service });
  await app.register(catalogRoutes, { service });
  await app.register(releaseRoutes, { prefix: '/releases', admin, tokens });
  // One tree of channel routes per kind: the public channels, then the promotion ladder.
  await app.register(channelRoutes, { prefix: '/channels', kind: 'public', admin, tokens });
  await app.register(channelRoutes, { prefix: '/internal-channels', kind: 'internal', admin, tokens });
  await app.register(riskRoutes, { admin, tokens });
  await app.register(auditRoutes, { admin, tokens });
  // Without a recorder of its own, the fleet API reads what the store holds (what replicas recorded).
  const fleet = opts.fleet ?? new FleetReads(storeQueries(service.store), service, opts.clock, undefined);
  const reports = new ReportIntake(service.store, opts.clock, {
    storedId: (id) => fleet.storedId(id),
    forget: () => {
      fleet.forget();
      opts.rollouts?.reported();
    },
  });
  await app.register(fleetRoutes, { fleet, reports, tokens });
  await app.register(changeRoutes, { store: service.store });
  const rolloutReads = new RolloutReads(
    service.store,
    () => service.current?.rollouts ?? [],
    () => opts.clock.now(),
    (id) => opts.rollouts?.counted.get(id),
  );
  await app.register(rolloutRoutes, { admin, tokens, reads: rolloutReads });
  if (opts.webhooks) await app.register(webhookRoutes, { webhooks: opts.webhooks, tokens });
}
