// Step 9 of an update: may the CVO leave a runlevel? Every ClusterOperator of the runlevel must be
// Available=True, Degraded=False (a missing condition counts as degraded) and at every version its
// manifest names (the ClusterOperator wait of the CVO's pkg/cvo/internal/operatorstatus.go). Otherwise
// the reason, in the CVO's words; degraded, unavailable or versionless operators fail the update
// after 40 minutes of waiting, and a slow one is named after 30 minutes (90 for machine-config, which
// updates every node of the control plane).
import type { KubeDoc } from '../../payload/load.js';
import type { Stage } from '../../payload/taskGraph.js';
import type { Condition } from '../conditions.js';
import { working } from './progressing.js';

export interface ExpectedOperator {
  name: string;
  versions: Array<{ name: string; version: string }>;
}

/** The fields of a ClusterOperator the CVO reads. */
export interface ClusterOperatorObject {
  metadata: { name: string };
  status?: { conditions?: Condition[]; versions?: Array<{ name: string; version: string }> };
}

export type OperatorReason =
  'ClusterOperatorNotAvailable' | 'ClusterOperatorDegraded' | 'ClusterOperatorNoVersions' | 'ClusterOperatorUpdating';

/**
 * The ClusterOperators whose manifests are in a stage, with the versions they must reach. A manifest
 * writes the placeholder 0.0.1-snapshot for "the release's own version".
 */
export function expectedOperators(stage: Stage, version: string): ExpectedOperator[] {
  type Versions = { versions?: Array<{ name: string; version: string }> } | undefined;
  const docs = stage.tasks.flatMap((t) => t.manifests.flatMap((m) => m.docs));
  return docs
    .filter((d: KubeDoc) => d.kind === 'ClusterOperator')
    .map((d) => ({
      name: d.metadata.name,
      versions: ((d.status as Versions)?.versions ?? []).map((v) => ({
        name: v.name,
        version: v.version === '0.0.1-snapshot' ? version : v.version,
      })),
    }));
}

export const FAIL_AFTER_MS = 40 * 60_000;
const slowAfter = (name: string): number => (name === 'machine-config' ? 90 : 30) * 60_000;

const PHRASE: Record<OperatorReason, [string, string]> = {
  ClusterOperatorNotAvailable: ['is not available', 'are not available'],
  ClusterOperatorDegraded: ['is degraded', 'are degraded'],
  ClusterOperatorNoVersions: ['does not declare expected versions', 'do not declare expected versions'],
  ClusterOperatorUpdating: ['is updating versions', 'are updating versions'],
};

/** What keeps one operator from being done, or undefined when it is done. */
export function operatorReason(
  expected: ExpectedOperator,
  co: ClusterOperatorObject | undefined,
): OperatorReason | undefined {
  if (!co) return 'ClusterOperatorNotAvailable';
  const cond = (type: string): string | undefined => co.status?.conditions?.find((c) => c.type === type)?.status;
  const versions = co.status?.versions ?? [];
  const atTarget = expected.versions.every((v) => versions.some((x) => x.name === v.name && x.version === v.version));
  if (cond('Degraded') === 'True') return 'ClusterOperatorDegraded';
  if (cond('Available') !== 'True') return 'ClusterOperatorNotAvailable';
  if (!atTarget) return versions.length === 0 ? 'ClusterOperatorNoVersions' : 'ClusterOperatorUpdating';
  if (cond('Degraded') !== 'False') return 'ClusterOperatorDegraded';
  return undefined;
}

export interface GateVerdict {
  done: boolean;
  progressing: { status: 'True'; reason: string; message: string };
  failing: { status: 'True' | 'False'; reason: string; message: string };
}

/** The verdict after waiting `waitedMs` on the operators of a runlevel. */
export function gateOperators(
  expected: ExpectedOperator[],
  operators: ClusterOperatorObject[],
  waitedMs: number,
  version: string,
  done: number,
  total: number,
): GateVerdict {
  const byName = new Map(operators.map((o) => [o.metadata.name, o]));
  const blocked = expected
    .map((e) => ({ name: e.name, reason: operatorReason(e, byName.get(e.name)) }))
    .filter((b): b is { name: string; reason: OperatorReason } => !!b.reason);
  const ok = { status: 'False' as const, reason: '', message: '' };
  if (blocked.length === 0)
    return {
      done: true,
      progressing: { status: 'True', reason: '', message: working(version, done, total) },
      failing: ok,
    };
  const failing = waitedMs >= FAIL_AFTER_MS ? blocked.filter((b) => b.reason !== 'ClusterOperatorUpdating') : [];
  if (failing.length) {
    const reasons = [...new Set(failing.map((f) => f.reason))];
    const names = failing.map((f) => f.name);
    const reason =
      reasons.length > 1
        ? 'MultipleErrors'
        : failing.length > 1
          ? reasons[0]!.replace('ClusterOperator', 'ClusterOperators')
          : reasons[0]!;
    const message =
      reasons.length > 1
        ? `Multiple errors are preventing progress:\n${failing.map((f) => `* Cluster operator ${f.name} ${PHRASE[f.reason][0]}`).join('\n')}`
        : failing.length > 1
          ? `Cluster operators ${names.join(', ')} ${PHRASE[reasons[0]!][1]}`
          : `Cluster operator ${names[0]} ${PHRASE[reasons[0]!][0]}`;
    return {
      done: false,
      progressing: {
        status: 'True',
        reason,
        message: `Unable to apply ${version}: wait has exceeded 40 minutes for these operators: ${names.join(', ')}`,
      },
      failing: { status: 'True', reason, message },
    };
  }
  const slow = blocked.filter((b) => b.reason === 'ClusterOperatorUpdating' && waitedMs >= slowAfter(b.name));
  const waiting = blocked.map((b) => b.name).join(', ');
  const message = slow.length
    ? `${working(version, done, total)}, waiting on ${waiting} over ${slowAfter(slow[0]!.name) / 60_000} minutes which is longer than expected`
    : `${working(version, done, total)}, waiting on ${waiting}`;
  return { done: false, progressing: { status: 'True', reason: '', message }, failing: ok };
}
