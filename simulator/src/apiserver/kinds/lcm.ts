// The node maintenance API of Mirantis LCM (lcm.mirantis.com/v1alpha1): the workload locks application
// controllers hold on the cluster and on each node, and the maintenance requests the lifecycle manager
// makes, all cluster-scoped custom resources, served only on a cluster that has them
// (the mock cluster's --workload-locks). A lock is `active` while its controller's workload must not
// be disturbed, `inactive` once the controller has made it safe, `failed` when the controller could not
// (its errorMessage says why). The real CRDs' printer columns were not found in public sources; the
// columns here are the fields an operator reads.
import { crdColumn } from './printing.js';
import { obj, str } from './schema.js';
import type { ResourceKind } from './types.js';

export const LCM_GROUP = 'lcm.mirantis.com';
export const LOCK_STATES = ['active', 'inactive', 'failed'] as const;
export type LockState = (typeof LOCK_STATES)[number];
export const MAINTENANCE_SCOPES = ['drain', 'os'] as const;

const lcm = (
  k: Omit<ResourceKind, 'group' | 'version' | 'definition' | 'crd' | 'optional' | 'generation' | 'namespaced'>,
) =>
  ({
    group: LCM_GROUP,
    version: 'v1alpha1',
    crd: true,
    optional: true,
    generation: true,
    namespaced: false,
    definition: `com.mirantis.lcm.v1alpha1.${k.kind}`,
    ...k,
  }) satisfies ResourceKind;

const controllerName = str('The application controller that owns the lock (openstack, ceph, …).');
const lockStatus = obj('What the controller says of its workload.', {
  state: str('active: the workload must not be disturbed; inactive: maintenance may go on; failed: see errorMessage.', {
    enum: [...LOCK_STATES],
  }),
  errorMessage: str('Why the controller could not make its workload ready for maintenance.'),
  release: str('The cluster release the controller last prepared its workload for.'),
});
const scope = str(
  'What the maintenance does: drain (the node is drained) or os (the node is drained and its OS updated and rebooted).',
  {
    enum: [...MAINTENANCE_SCOPES],
  },
);
const age = crdColumn('Age', 'date', '.metadata.creationTimestamp');

export const CLUSTER_WORKLOAD_LOCK = lcm({
  plural: 'clusterworkloadlocks',
  kind: 'ClusterWorkloadLock',
  status: true,
  schema: obj('A lock an application controller holds on the cluster while its application must not be updated.', {
    spec: obj('The owner of the lock.', { controllerName }, ['controllerName']),
    status: lockStatus,
  }),
  columns: [
    crdColumn('Controller', 'string', '.spec.controllerName', 'The controller that owns the lock.'),
    crdColumn('State', 'string', '.status.state', 'active, inactive or failed.'),
    crdColumn('Release', 'string', '.status.release', 'The release the controller last prepared for.'),
    crdColumn('Error', 'string', '.status.errorMessage', 'Why the lock failed.', 1),
    age,
  ],
});

export const NODE_WORKLOAD_LOCK = lcm({
  plural: 'nodeworkloadlocks',
  kind: 'NodeWorkloadLock',
  status: true,
  schema: obj('A lock an application controller holds on one node while its workload there must not be disturbed.', {
    spec: obj(
      'The owner of the lock and its node.',
      { controllerName, nodeName: str('The node the lock is held on.') },
      ['controllerName', 'nodeName'],
    ),
    status: lockStatus,
  }),
  columns: [
    crdColumn('Controller', 'string', '.spec.controllerName', 'The controller that owns the lock.'),
    crdColumn('Node', 'string', '.spec.nodeName', 'The node the lock is held on.'),
    crdColumn('State', 'string', '.status.state', 'active, inactive or failed.'),
    crdColumn('Release', 'string', '.status.release', 'The release the controller last prepared for.', 1),
    crdColumn('Error', 'string', '.status.errorMessage', 'Why the lock failed.', 1),
    age,
  ],
});

export const CLUSTER_MAINTENANCE_REQUEST = lcm({
  plural: 'clustermaintenancerequests',
  kind: 'ClusterMaintenanceRequest',
  schema: obj('The lifecycle manager asks the application controllers to prepare the cluster for maintenance.', {
    spec: obj('What the maintenance does.', { scope }),
  }),
  columns: [crdColumn('Scope', 'string', '.spec.scope', 'drain or os.'), age],
});

export const NODE_MAINTENANCE_REQUEST = lcm({
  plural: 'nodemaintenancerequests',
  kind: 'NodeMaintenanceRequest',
  schema: obj('The lifecycle manager asks the application controllers to prepare one node for maintenance.', {
    spec: obj('The node and what the maintenance does.', { nodeName: str('The node to maintain.'), scope }, [
      'nodeName',
    ]),
  }),
  columns: [
    crdColumn('Node', 'string', '.spec.nodeName', 'The node to maintain.'),
    crdColumn('Scope', 'string', '.spec.scope', 'drain or os.'),
    age,
  ],
});

export const LCM_KINDS: ResourceKind[] = [
  CLUSTER_WORKLOAD_LOCK,
  NODE_WORKLOAD_LOCK,
  CLUSTER_MAINTENANCE_REQUEST,
  NODE_MAINTENANCE_REQUEST,
];
