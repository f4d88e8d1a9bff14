// The ClusterVersion object as the agent reads and writes it. Two loops write its status (the update
// poll and the update executor), each only its own fields: every write re-reads the object, applies
// a change to the fresh status, and retries on a conflict, so neither loses the other's work.
import { canonicalJson } from '../canonicalJson.js';
import type { ClusterApi } from '../cluster/api.js';
import { isConflict } from '../cluster/apiError.js';
import { DroppedFieldsError, droppedFields } from '../cluster/dropped.js';
import { RESOURCES } from '../cluster/resources.js';
import type { Risk } from '../graph/model.js';
import type { Condition } from './conditions.js';

export { removeCondition, setCondition } from './conditions.js';

/** The one ClusterVersion of a cluster. */
export const CLUSTER_VERSION_KEY = { name: 'version' };

/** A release as ClusterVersion status names one (openshift/api config/v1 Release). */
export interface ClusterRelease {
  version: string;
  image: string;
  url?: string;
  channels?: string[];
  architecture?: string;
}

export interface HistoryEntry {
  state: 'Partial' | 'Completed';
  startedTime: string;
  completionTime: string | null;
  version: string;
  image: string;
  verified: boolean;
  acceptedRisks?: string;
}

export interface DesiredUpdate {
  version?: string;
  image?: string;
  force?: boolean;
  architecture?: string;
  acceptRisks?: Array<{ name: string }>;
}

export interface ConditionalUpdateStatus {
  release: ClusterRelease;
  /** The names of its risks, in the graph's order (the accept-risks feature). */
  riskNames?: string[];
  risks: Risk[];
  conditions: Condition[];
}

export type RiskStatus = Risk & { conditions: Condition[] };

export interface ClusterVersionStatus {
  desired?: ClusterRelease;
  history?: HistoryEntry[];
  availableUpdates?: ClusterRelease[] | null;
  conditionalUpdates?: ConditionalUpdateStatus[];
  /** Each risk of the conditional updates once, with its Applies condition (the accept-risks feature). */
  conditionalUpdateRisks?: RiskStatus[];
  conditions?: Condition[];
  observedGeneration?: number;
  [key: string]: unknown;
}

export interface ClusterVersion {
  metadata: { name?: string; resourceVersion?: string; generation?: number };
  spec: {
    clusterID: string;
    channel?: string;
    upstream?: string;
    desiredUpdate?: DesiredUpdate;
    signatureStores?: Array<{ url: string }>;
  };
  status: ClusterVersionStatus;
}

export class ClusterVersionClient {
  constructor(private readonly api: ClusterApi) {}

  get(): Promise<ClusterVersion> {
    return this.api.get<ClusterVersion>(RESOURCES.clusterVersions, CLUSTER_VERSION_KEY);
  }

  /**
   * Writes `change(fresh status)` through the status subresource; nothing when it changes nothing.
   * Returns whether it wrote. A write stored without some of its fields (a ClusterVersion CRD whose schema
   * lost them prunes them, and still answers 200) is a DroppedFieldsError, never a success.
   */
  async writeStatus(
    change: (status: ClusterVersionStatus, cv: ClusterVersion) => ClusterVersionStatus,
  ): Promise<boolean> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const cv = await this.get();
      const status = change(structuredClone(cv.status ?? {}), cv);
      if (canonicalJson(status) === canonicalJson(cv.status ?? {})) return false;
      try {
        const stored = await this.api.replaceStatus(RESOURCES.clusterVersions, { ...cv, status });
        const dropped = droppedFields(status, stored.status).map((f) => `status.${f}`);
        if (dropped.length) throw new DroppedFieldsError('the ClusterVersion version', dropped);
        return true;
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
    }
    throw new Error('ClusterVersion status kept changing under the agent: 8 conflicts in a row');
  }
}
