// Leases (coordination.k8s.io/v1): each node's kubelet holds one in kube-node-lease, which kubectl describe
// node shows.
import { ageColumn } from './printing.js';
import { int, obj, str, time } from './schema.js';
import type { ResourceKind } from './types.js';

export const LEASE: ResourceKind = {
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
  kind: 'Lease',
  namespaced: true,
  definition: 'io.k8s.api.coordination.v1.Lease',
  schema: obj('A lock a holder renews to show it is alive.', {
    spec: obj('Who holds the lease and since when.', {
      holderIdentity: str('Who holds it.'),
      leaseDurationSeconds: int('Seconds it lasts unless renewed.'),
      acquireTime: time('When it was acquired.'),
      renewTime: time('When it was last renewed.'),
      leaseTransitions: int('How many times it changed hands.'),
      strategy: str('How a new holder is chosen.'),
      preferredHolder: str('Who should hold it next.'),
    }),
  }),
  columns: [
    {
      name: 'Holder',
      type: 'string',
      description: 'Who holds it.',
      cell: (o) => (o.spec as { holderIdentity?: string } | undefined)?.holderIdentity ?? '',
    },
    ageColumn,
  ],
};
