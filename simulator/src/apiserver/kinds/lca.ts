// The Lifecycle Agent's API (lca.openshift.io/v1): the ImageBasedUpgrade singleton `upgrade` through which an
// image-based upgrade of a single-node cluster is driven (field, column and rule names of
// openshift-kni/lifecycle-agent). Served only on a cluster that has the agent (`mock-cluster --single-node`).
// The API server's part of the real CRD is here too: the stage enum, and the transition rules (x-kubernetes-
// validations) that refuse a stage not in status.validNextStages and a change of the spec while an upgrade is
// under way.
import { condition } from './meta.js';
import { crdColumn } from './printing.js';
import { define, int, arrayOf, obj, ref, str, time } from './schema.js';
import type { StoredObject, ResourceKind, RuleViolation } from './types.js';

export const IBU_STAGES = ['Idle', 'Prep', 'Upgrade', 'Rollback'] as const;
export const IBU_NAME = 'upgrade';

const CONFIG_MAP_REF = define(
  'io.openshift.lca.imagebasedupgrade.v1.ConfigMapRef',
  obj(
    'A ConfigMap, by name and namespace.',
    { name: str('Name of the ConfigMap.'), namespace: str('Namespace of the ConfigMap.') },
    ['name', 'namespace'],
  ),
);

const PHASE = define(
  'io.openshift.lca.imagebasedupgrade.v1.Phase',
  obj('A timed step of a stage.', {
    phase: str('Name of the phase (PrePivot, PostPivot, …).'),
    startTime: time('When the phase started.'),
    completionTime: time('When the phase completed; unset while it runs.'),
  }),
);

const specOf = (o: StoredObject | undefined): Record<string, unknown> =>
  ((o?.spec ?? {}) as Record<string, unknown>) || {};
const statusOf = (o: StoredObject | undefined): Record<string, unknown> | undefined =>
  o?.status as Record<string, unknown> | undefined;

/** The spec fields the real CRD freezes while an upgrade is in progress (its CEL rules, one per field). */
const FROZEN = ['seedImageRef', 'oadpContent', 'extraManifests', 'autoRollbackOnFailure'];

/** The real CRD's rules on a write of `next` over `old`: each broken one, with the message it gives. */
function ibuRules(next: StoredObject, old: StoredObject | undefined): RuleViolation[] {
  const out: RuleViolation[] = [];
  const stage = specOf(next).stage;
  if (stage !== undefined && !(IBU_STAGES as readonly unknown[]).includes(stage))
    out.push({
      field: 'spec.stage',
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(stage)}: supported values: ${IBU_STAGES.map((s) => `"${s}"`).join(', ')}`,
    });
  if (next.metadata.name !== IBU_NAME) out.push(rule("ibu is a singleton, metadata.name must be 'upgrade'"));
  const oldStatus = statusOf(old);
  if (!old || oldStatus === undefined) return out; // transition rules need an old object with a status
  const idle = ((oldStatus.conditions ?? []) as Array<{ type?: string; status?: string }>).some(
    (c) => c.type === 'Idle' && c.status === 'True',
  );
  for (const field of FROZEN) {
    const a = specOf(old)[field];
    const b = specOf(next)[field];
    const same = JSON.stringify(a) === JSON.stringify(b);
    if (!idle && stage !== 'Idle' && !same) out.push(rule(`can not change spec.${field} while ibu is in progress`));
  }
  const valid = oldStatus.validNextStages as unknown[] | undefined;
  const unchanged = specOf(old).stage !== undefined && stage !== undefined && specOf(old).stage === stage;
  const listed = Array.isArray(valid) && valid.length > 0 && valid.includes(stage);
  if (!listed && !unchanged)
    out.push(
      rule(
        'the stage transition is not permitted. Please refer to status.validNextStages for valid transitions. If status.validNextStages is not present, it indicates that no transitions are currently allowed',
      ),
    );
  return out;
}

/** A rule on the whole object: the API server names no field for it (`<nil>`) and shows the value as "object". */
const rule = (message: string): RuleViolation => ({
  field: '<nil>',
  reason: 'FieldValueInvalid',
  message: `Invalid value: "object": ${message}`,
});

export const IMAGE_BASED_UPGRADE: ResourceKind = {
  group: 'lca.openshift.io',
  version: 'v1',
  plural: 'imagebasedupgrades',
  kind: 'ImageBasedUpgrade',
  namespaced: false,
  shortNames: ['ibu'],
  status: true,
  generation: true,
  crd: true,
  optional: true,
  definition: 'io.openshift.lca.imagebasedupgrade.v1.ImageBasedUpgrade',
  rules: ibuRules,
  schema: obj('An image-based upgrade of this single-node cluster, driven stage by stage.', {
    spec: obj('The stage wanted, and what the upgrade uses.', {
      stage: str('The desired stage: Idle, Prep, Upgrade or Rollback.', { enum: [...IBU_STAGES] }),
      seedImageRef: obj('The seed image and the version it holds.', {
        version: str('The version of the seed image (the target version).'),
        image: str('Pull spec of the seed image.'),
        pullSecretRef: obj('The Secret to pull it with.', { name: str('Name of the Secret.') }, ['name']),
      }),
      oadpContent: arrayOf('ConfigMaps holding the OADP Backup and Restore manifests.', ref(CONFIG_MAP_REF.ref!, '')),
      extraManifests: arrayOf('ConfigMaps holding manifests applied after the pivot.', ref(CONFIG_MAP_REF.ref!, '')),
      autoRollbackOnFailure: obj('The automatic rollback when the upgrade does not complete.', {
        initMonitorTimeoutSeconds: int('Seconds after the reboot before a rollback; 0 or unset: 1800.'),
      }),
    }),
    status: obj('Where the upgrade stands.', {
      observedGeneration: int('The generation last acted on.', 'int64'),
      startedAt: time('When the upgrade started.'),
      completedAt: time('When the upgrade completed.'),
      conditions: arrayOf('Idle, PrepInProgress, PrepCompleted, UpgradeInProgress, …', condition('A condition.'), {
        mergeKey: 'type',
      }),
      validNextStages: arrayOf('The stages spec.stage may be set to now.', { type: 'string' }),
      rollbackAvailabilityExpiration: time('After this, rolling back may need a manual recovery of certificates.'),
      history: arrayOf(
        'Each stage run: when it started and completed, and its phases.',
        obj('A stage run.', {
          stage: str('The stage.'),
          startTime: time('When it started.'),
          completionTime: time('When it completed; unset while it runs or after it failed.'),
          phases: arrayOf('Its phases.', ref(PHASE.ref!, '')),
        }),
      ),
    }),
  }),
  columns: [
    crdColumn('Age', 'date', '.metadata.creationTimestamp'),
    crdColumn('Desired Stage', 'string', '.spec.stage'),
    crdColumn('State', 'string', '.status.conditions[-1:].reason'),
    crdColumn('Details', 'string', '.status.conditions[-1:].message'),
  ],
};
