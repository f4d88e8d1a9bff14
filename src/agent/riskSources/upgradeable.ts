// ClusterOperators that say Upgradeable=False as risks of the minor and major updates, as the newest
// cluster-version-operator's pkg/risk/upgradeable source makes them: one risk per such operator, named
// `ClusterOperatorUpgradeable-<operator>`, its message the operator's own, always applying.
import semver from 'semver';
import { apiStatus } from '../../cluster/apiError.js';
import { RESOURCES } from '../../cluster/resources.js';
import type { ClusterApi } from '../../cluster/api.js';
import type { ClusterOperatorObject } from '../update/gate.js';
import {
  conditionTypesDocs,
  forVersions,
  majorAndMinorUpdates,
  PRODUCT_DOCS,
  type RiskSource,
  type SourceAnswer,
  type SourceRisk,
  unknownRisk,
} from './source.js';
import { UPGRADEABLE_SOURCE } from './names.js';

export function upgradeableSource(api: ClusterApi): RiskSource {
  return {
    name: UPGRADEABLE_SOURCE,
    async risks(versions, cv): Promise<SourceAnswer> {
      const current = semver.parse(cv.status.desired?.version);
      if (!current) {
        const message = `Failed to parse cluster version to check Upgradeable conditions: ${JSON.stringify(cv.status.desired?.version ?? '')} is not SemVer`;
        return unknown(message, PRODUCT_DOCS, versions);
      }
      let operators: ClusterOperatorObject[];
      try {
        operators = (await api.list<ClusterOperatorObject>(RESOURCES.clusterOperators)).items;
      } catch (err) {
        // No ClusterOperator kind at all (the CVO's NoMatch): nothing to say, as the CVO says nothing.
        if (apiStatus(err) === 404) return { risks: [], versions: new Map() };
        const message = `Failed to retrieve ClusterOperators to check Upgradeable conditions: ${(err as Error).message}`;
        return unknown(message, conditionTypesDocs(current), majorAndMinorUpdates(current, versions));
      }
      const risks: SourceRisk[] = operators
        .flatMap((op) => {
          const up = op.status?.conditions?.find((c) => c.type === 'Upgradeable');
          if (up?.status !== 'False') return [];
          return [
            {
              name: `${UPGRADEABLE_SOURCE}-${op.metadata.name}`,
              // The schema wants a message: an operator that gives none is named instead.
              message:
                up.message ||
                `ClusterOperator ${op.metadata.name} is not upgradeable (${up.reason || 'no reason given'})`,
              url: conditionTypesDocs(current),
              matchingRules: [{ type: 'Always' as const }],
            },
          ];
        })
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return { risks, versions: forVersions(risks, majorAndMinorUpdates(current, versions)) };
    },
  };
}

const unknown = (message: string, url: string, versions: string[]): SourceAnswer =>
  unknownRisk(UPGRADEABLE_SOURCE, message, url, versions);
