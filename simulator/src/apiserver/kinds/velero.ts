// The OADP operator's API (velero.io/v1): Backup and Restore, the two kinds the Lifecycle Agent creates from
// the manifests of spec.oadpContent to carry application data across an image-based upgrade. Served only on
// a cluster with OADP (`mock-cluster --single-node`); the mock's OADP simulation (oadp.ts) completes them.
import { free, int, arrayOf, obj, str, time, map } from './schema.js';
import type { ResourceKind } from './types.js';

const velero = (k: Pick<ResourceKind, 'plural' | 'kind' | 'schema'>): ResourceKind => ({
  group: 'velero.io',
  version: 'v1',
  namespaced: true,
  status: true,
  generation: true,
  crd: true,
  optional: true,
  definition: `io.velero.v1.${k.kind}`,
  ...k,
});

const progress = {
  phase: str('New, FailedValidation, InProgress, Completed, PartiallyFailed or Failed.'),
  validationErrors: arrayOf('Why the request is not valid.', { type: 'string' }),
  startTimestamp: time('When it started.'),
  completionTimestamp: time('When it completed.'),
  errors: int('How many errors it met.'),
  warnings: int('How many warnings it met.'),
};

export const BACKUP = velero({
  plural: 'backups',
  kind: 'Backup',
  schema: obj('A backup of cluster resources and volumes to object storage.', {
    spec: obj('What to back up.', {
      includedNamespaces: arrayOf('Namespaces to include (all when empty).', { type: 'string' }),
      excludedNamespaces: arrayOf('Namespaces to leave out.', { type: 'string' }),
      includedResources: arrayOf('Resources to include.', { type: 'string' }),
      includedClusterScopedResources: arrayOf('Cluster-scoped resources to include.', { type: 'string' }),
      labelSelector: free('Only objects with these labels.'),
      storageLocation: str('The BackupStorageLocation to write to.'),
      ttl: str('How long the backup is kept.'),
      hooks: free('Hooks run before and after.'),
    }),
    status: obj('How the backup went.', { ...progress, expiration: time('When the backup expires.') }),
  }),
});

export const RESTORE = velero({
  plural: 'restores',
  kind: 'Restore',
  schema: obj('A restore of a backup into the cluster.', {
    spec: obj('What to restore.', {
      backupName: str('The Backup to restore from.'),
      includedNamespaces: arrayOf('Namespaces to include.', { type: 'string' }),
      restorePVs: free('Whether to restore volumes.'),
      namespaceMapping: map('Namespaces renamed on the way.'),
    }),
    status: obj('How the restore went.', progress),
  }),
});

export const VELERO_KINDS = [BACKUP, RESTORE];
