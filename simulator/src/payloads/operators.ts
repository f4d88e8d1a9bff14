// What a generated payload holds, as a real OpenShift release does: the cluster operators with their
// runlevels, namespaces, Deployments, CRDs and operand images; the config kinds installed first; the
// monitoring dashboards; the cluster-version-operator itself; and the one payload Job.

/** One ClusterOperator and its operator: the files of component `co` at runlevel `rl`. */
export interface Operator {
  co: string;
  rl: number;
  namespace?: string; // default openshift-<co>-operator
  deployment?: string; // default <co>-operator; also its image-references tag
  crds?: string[]; // 'Kind.group'
  /** status.versions names besides `operator` (the mock sets them to the new version too). */
  versions?: string[];
  /** Operand images: image-references tags, passed to the operator as <NAME>_IMAGE. */
  operands?: string[];
}

export const OPERATORS: Operator[] = [
  { co: 'config-operator', rl: 5, deployment: 'openshift-config-operator', crds: ['Config.operator.openshift.io'] },
  {
    co: 'cloud-credential',
    rl: 10,
    crds: ['CredentialsRequest.cloudcredential.openshift.io', 'CloudCredential.operator.openshift.io'],
  },
  { co: 'etcd', rl: 12, crds: ['Etcd.operator.openshift.io'], versions: ['raw-internal', 'etcd'], operands: ['etcd'] },
  {
    co: 'kube-apiserver',
    rl: 20,
    crds: ['KubeAPIServer.operator.openshift.io'],
    versions: ['raw-internal', 'kube-apiserver'],
    operands: ['hyperkube'],
  },
  {
    co: 'kube-controller-manager',
    rl: 25,
    crds: ['KubeControllerManager.operator.openshift.io'],
    versions: ['raw-internal', 'kube-controller-manager'],
  },
  {
    co: 'kube-scheduler',
    rl: 25,
    crds: ['KubeScheduler.operator.openshift.io'],
    versions: ['raw-internal', 'kube-scheduler'],
  },
  { co: 'cloud-controller-manager', rl: 26, deployment: 'cluster-cloud-controller-manager-operator' },
  {
    co: 'machine-api',
    rl: 30,
    namespace: 'openshift-machine-api',
    crds: [
      'Machine.machine.openshift.io',
      'MachineSet.machine.openshift.io',
      'MachineHealthCheck.machine.openshift.io',
    ],
  },
  { co: 'machine-approver', rl: 30, namespace: 'openshift-cluster-machine-approver', deployment: 'machine-approver' },
  { co: 'control-plane-machine-set', rl: 30, crds: ['ControlPlaneMachineSet.machine.openshift.io'] },
  {
    co: 'cluster-autoscaler',
    rl: 30,
    crds: ['ClusterAutoscaler.autoscaling.openshift.io', 'MachineAutoscaler.autoscaling.openshift.io'],
  },
  {
    co: 'baremetal',
    rl: 30,
    deployment: 'cluster-baremetal-operator',
    crds: [
      'Provisioning.metal3.io',
      'BareMetalHost.metal3.io',
      'BMCEventSubscription.metal3.io',
      'FirmwareSchema.metal3.io',
      'HostFirmwareSettings.metal3.io',
      'PreprovisioningImage.metal3.io',
    ],
  },
  {
    co: 'kube-storage-version-migrator',
    rl: 40,
    crds: [
      'KubeStorageVersionMigrator.operator.openshift.io',
      'StorageVersionMigration.migration.k8s.io',
      'StorageState.migration.k8s.io',
    ],
  },
  { co: 'service-ca', rl: 40, crds: ['ServiceCA.operator.openshift.io'] },
  {
    co: 'openshift-apiserver',
    rl: 40,
    namespace: 'openshift-apiserver-operator',
    crds: ['OpenShiftAPIServer.operator.openshift.io'],
    versions: ['openshift-apiserver'],
  },
  {
    co: 'authentication',
    rl: 40,
    crds: ['Authentication.operator.openshift.io'],
    versions: ['oauth-apiserver', 'oauth-openshift'],
    operands: ['oauth-server'],
  },
  {
    co: 'openshift-controller-manager',
    rl: 50,
    namespace: 'openshift-controller-manager-operator',
    crds: ['OpenShiftControllerManager.operator.openshift.io'],
  },
  {
    co: 'console',
    rl: 50,
    crds: [
      'Console.operator.openshift.io',
      'ConsoleCLIDownload.console.openshift.io',
      'ConsoleExternalLogLink.console.openshift.io',
      'ConsoleLink.console.openshift.io',
      'ConsoleNotification.console.openshift.io',
      'ConsolePlugin.console.openshift.io',
      'ConsoleQuickStart.console.openshift.io',
      'ConsoleYAMLSample.console.openshift.io',
    ],
    operands: ['console'],
  },
  {
    co: 'csi-snapshot-controller',
    rl: 50,
    crds: [
      'CSISnapshotController.operator.openshift.io',
      'VolumeSnapshot.snapshot.storage.k8s.io',
      'VolumeSnapshotClass.snapshot.storage.k8s.io',
      'VolumeSnapshotContent.snapshot.storage.k8s.io',
    ],
  },
  {
    co: 'image-registry',
    rl: 50,
    namespace: 'openshift-image-registry',
    deployment: 'cluster-image-registry-operator',
    crds: ['Config.imageregistry.operator.openshift.io', 'ImagePruner.imageregistry.operator.openshift.io'],
  },
  { co: 'ingress', rl: 50, crds: ['IngressController.operator.openshift.io'], operands: ['haproxy-router'] },
  { co: 'marketplace', rl: 50, namespace: 'openshift-marketplace' },
  {
    co: 'monitoring',
    rl: 50,
    namespace: 'openshift-monitoring',
    deployment: 'cluster-monitoring-operator',
    crds: [
      'Alertmanager.monitoring.coreos.com',
      'AlertmanagerConfig.monitoring.coreos.com',
      'PodMonitor.monitoring.coreos.com',
      'Probe.monitoring.coreos.com',
      'Prometheus.monitoring.coreos.com',
      'PrometheusRule.monitoring.coreos.com',
      'ServiceMonitor.monitoring.coreos.com',
      'ThanosRuler.monitoring.coreos.com',
      'AlertingRule.monitoring.openshift.io',
      'AlertRelabelConfig.monitoring.openshift.io',
    ],
    operands: ['prometheus'],
  },
  {
    co: 'node-tuning',
    rl: 50,
    namespace: 'openshift-cluster-node-tuning-operator',
    deployment: 'cluster-node-tuning-operator',
    crds: ['Tuned.tuned.openshift.io', 'Profile.tuned.openshift.io', 'PerformanceProfile.performance.openshift.io'],
  },
  {
    co: 'operator-lifecycle-manager',
    rl: 50,
    namespace: 'openshift-operator-lifecycle-manager',
    deployment: 'olm-operator',
    crds: [
      'ClusterServiceVersion.operators.coreos.com',
      'InstallPlan.operators.coreos.com',
      'OperatorGroup.operators.coreos.com',
      'Subscription.operators.coreos.com',
      'OperatorCondition.operators.coreos.com',
      'OLMConfig.operators.coreos.com',
    ],
  },
  {
    co: 'operator-lifecycle-manager-catalog',
    rl: 50,
    namespace: 'openshift-catalogd',
    deployment: 'catalog-operator',
    crds: ['CatalogSource.operators.coreos.com'],
  },
  {
    co: 'operator-lifecycle-manager-packageserver',
    rl: 50,
    namespace: 'openshift-package-server-manager',
    deployment: 'package-server-manager',
  },
  {
    co: 'storage',
    rl: 50,
    namespace: 'openshift-cluster-storage-operator',
    deployment: 'cluster-storage-operator',
    crds: ['Storage.operator.openshift.io', 'ClusterCSIDriver.operator.openshift.io'],
  },
  {
    co: 'network',
    rl: 70,
    crds: [
      'Network.operator.openshift.io',
      'EgressRouter.network.operator.openshift.io',
      'OperatorPKI.network.operator.openshift.io',
    ],
    operands: ['ovn-kubernetes'],
  },
  {
    co: 'dns',
    rl: 70,
    crds: ['DNS.operator.openshift.io', 'DNSRecord.ingress.operator.openshift.io'],
    operands: ['coredns'],
  },
  {
    co: 'machine-config',
    rl: 80,
    crds: [
      'MachineConfig.machineconfiguration.openshift.io',
      'MachineConfigPool.machineconfiguration.openshift.io',
      'KubeletConfig.machineconfiguration.openshift.io',
      'ContainerRuntimeConfig.machineconfiguration.openshift.io',
      'ControllerConfig.machineconfiguration.openshift.io',
      'MachineConfiguration.operator.openshift.io',
    ],
    operands: ['rhel-coreos'],
  },
  {
    co: 'openshift-samples',
    rl: 90,
    namespace: 'openshift-cluster-samples-operator',
    deployment: 'cluster-samples-operator',
    crds: ['Config.samples.operator.openshift.io'],
  },
  {
    co: 'insights',
    rl: 90,
    namespace: 'openshift-insights',
    crds: ['InsightsOperator.operator.openshift.io', 'DataGather.insights.openshift.io'],
  },
];

/** The config.openshift.io kinds the config-operator installs at runlevel 03, before anything reads them. */
export const CONFIG_KINDS = [
  'APIServer',
  'Authentication',
  'Build',
  'ClusterImagePolicy',
  'Console',
  'DNS',
  'FeatureGate',
  'Image',
  'ImageContentPolicy',
  'ImageDigestMirrorSet',
  'ImageTagMirrorSet',
  'Infrastructure',
  'Ingress',
  'Network',
  'Node',
  'OAuth',
  'OperatorHub',
  'Project',
  'Proxy',
  'Scheduler',
];

export const MONITORING_DASHBOARDS = [
  'api-performance',
  'cluster-total',
  'etcd',
  'k8s-resources-cluster',
  'k8s-resources-namespace',
  'k8s-resources-node',
  'k8s-resources-pod',
  'k8s-resources-workload',
  'k8s-resources-workloads-namespace',
  'namespace-by-pod',
  'node-cluster-rsrc-use',
  'node-rsrc-use',
  'pod-total',
  'prometheus',
];

export const CVO = { component: 'cluster-version-operator', namespace: 'openshift-cluster-version' };
/** The one payload Job: it splits runlevel 50, as a real migration Job splits the CVO's task graph. */
export const MIGRATION_JOB = { co: 'monitoring', name: 'prometheus-storage-migration' };
