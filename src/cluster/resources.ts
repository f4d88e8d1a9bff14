// The resources the agent and the command line read and write, named once.
import type { KubeObject, Resource } from './api.js';

const core = (resource: string, namespaced: boolean): Resource => ({ group: '', version: 'v1', resource, namespaced });
const config = (resource: string): Resource => ({
  group: 'config.openshift.io',
  version: 'v1',
  resource,
  namespaced: false,
});
const machineConfiguration = (resource: string): Resource => ({
  group: 'machineconfiguration.openshift.io',
  version: 'v1',
  resource,
  namespaced: false,
});
const lcm = (resource: string): Resource => ({
  group: 'lcm.mirantis.com',
  version: 'v1alpha1',
  resource,
  namespaced: false,
});

export const RESOURCES = {
  configMaps: core('configmaps', true),
  namespaces: core('namespaces', false),
  nodes: core('nodes', false),
  pods: core('pods', true),
  secrets: core('secrets', true),
  events: core('events', true),
  serviceAccounts: core('serviceaccounts', true),
  jobs: { group: 'batch', version: 'v1', resource: 'jobs', namespaced: true },
  customResourceDefinitions: {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    namespaced: false,
  },
  services: core('services', true),
  deployments: { group: 'apps', version: 'v1', resource: 'deployments', namespaced: true },
  podDisruptionBudgets: { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', namespaced: true },
  routes: { group: 'route.openshift.io', version: 'v1', resource: 'routes', namespaced: true },
  updateServices: {
    group: 'updateservice.operator.openshift.io',
    version: 'v1',
    resource: 'updateservices',
    namespaced: true,
  },
  imageConfigs: config('images'),
  clusterVersions: config('clusterversions'),
  clusterOperators: config('clusteroperators'),
  featureGates: config('featuregates'),
  proxies: config('proxies'),
  machineConfigPools: machineConfiguration('machineconfigpools'),
  machineConfigs: machineConfiguration('machineconfigs'),
  imageBasedUpgrades: { group: 'lca.openshift.io', version: 'v1', resource: 'imagebasedupgrades', namespaced: false },
  clusterMaintenanceRequests: lcm('clustermaintenancerequests'),
  nodeMaintenanceRequests: lcm('nodemaintenancerequests'),
  clusterWorkloadLocks: lcm('clusterworkloadlocks'),
  nodeWorkloadLocks: lcm('nodeworkloadlocks'),
} satisfies Record<string, Resource>;

/** A ConfigMap: text under `data`, bytes (base64) under `binaryData`. */
export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
}
