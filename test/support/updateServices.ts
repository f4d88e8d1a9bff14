// An UpdateService as the operator's tests write it, and a CA that is no certificate
// (test/unit/operator/: operands, updateService).
import type { UpdateService } from '../../src/operator/updateService.js';

export const us = (spec: Partial<UpdateService['spec']> = {}): UpdateService => ({
  apiVersion: 'updateservice.operator.openshift.io/v1',
  kind: 'UpdateService',
  metadata: { name: 'update-service-oc-mirror', namespace: 'openshift-update-service', uid: 'u-1' },
  spec: {
    releases: 'mirror.example.com:8443/openshift/release-images',
    graphDataImage: 'mirror.example.com:8443/openshift/graph-image:latest',
    replicas: 2,
    ...spec,
  },
});
/** PEM armour around bytes that are no certificate. */
export const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
