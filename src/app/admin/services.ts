// The admin services over one store and graph service, on one clock: a service per job, each write
// validated, audited and rebuilt through AuditedWrites.
import { systemClock, type Clock } from '../../clock.js';
import { TrustStore } from '../../signatures/verify.js';
import type { Store } from '../../store/store.js';
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
}

export function createAdminServices(
  store: Store,
  graph: GraphService,
  options: { clock?: Clock; trust?: TrustStore } = {},
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
  };
}
