// The admin services over one store and graph service, on one clock: a service per job, each write
// validated, audited and rebuilt through AuditedWrites.
import { systemClock, type Clock } from '../../clock.js';
import { TrustStore } from '../../signatures/verify.js';
import type { ChangeSink } from '../../store/changeSink.js';
import type { Store } from '../../store/store.js';
import { RolloutWrites } from '../rollouts/rolloutWrites.js';
import type { GraphService } from '../graphService.js';
import { ChannelWrites } from './channels.js';
import { FeederPass } from './feederPass.js';
import { FeederRules } from './feederRules.js';
import { Promotion } from './promotion.js';
import { AdminQueries } from './queries.js';
import { ReleaseWrites } from './releases.js';
import { RiskWrites } from './risks.js';
import { SignatureWrites } from './signatures.js';
import { AuditedWrites } from './writes.js';

export interface AdminServices {
  releases: ReleaseWrites;
  signatures: SignatureWrites;
  channels: ChannelWrites;
  risks: RiskWrites;
  promotion: Promotion;
  feeders: FeederPass;
  queries: AdminQueries;
  rollouts: RolloutWrites;
}

export function createAdminServices(
  store: Store,
  graph: GraphService,
  options: {
    clock?: Clock;
    trust?: TrustStore;
    /** Where changes go besides graph history (the webhook outbox), in their write's transaction. */
    sinks?: readonly ChangeSink[];
    /** This service's address as clusters reach it (a halted rollout's risk links there). */
    publicUrl?: string;
  } = {},
): AdminServices {
  const clock = options.clock ?? systemClock;
  const writes = new AuditedWrites(store, graph, clock);
  const promotion = new Promotion(writes, new FeederRules(clock));
  return {
    releases: new ReleaseWrites(writes),
    signatures: new SignatureWrites(writes, options.trust ?? TrustStore.empty()),
    channels: new ChannelWrites(writes),
    risks: new RiskWrites(writes),
    promotion,
    feeders: new FeederPass(writes, promotion),
    queries: new AdminQueries(store, graph),
    rollouts: new RolloutWrites(writes, options.sinks ?? [], options.publicUrl ?? 'http://localhost:8080'),
  };
}
