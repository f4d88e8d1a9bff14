// Labels and annotations of Kubernetes and OpenShift objects that the agent, the mock cluster, the payload
// generator and the command line read or write. (Release metadata keys of the graph are LABEL in graph/model.)
export const KUBE_LABEL = {
  /** Node roles are labels `node-role.kubernetes.io/<role>` with an empty value. */
  nodeRolePrefix: 'node-role.kubernetes.io/',
  masterRole: 'node-role.kubernetes.io/master',
  arch: 'kubernetes.io/arch',
  os: 'kubernetes.io/os',
  zone: 'topology.kubernetes.io/zone',
  /** `rhel` on RHEL compute nodes, whose kubelet the Machine Config Operator does not update. */
  osId: 'node.openshift.io/os_id',
  /** ConfigMaps in openshift-config-managed holding release signatures, as the CVO looks them up. */
  verificationSignatures: 'release.openshift.io/verification-signatures',
  /** Node annotations of the Machine Config Daemon. */
  currentConfig: 'machineconfiguration.openshift.io/currentConfig',
  desiredConfig: 'machineconfiguration.openshift.io/desiredConfig',
  mcdState: 'machineconfiguration.openshift.io/state',
  /** On an operator Deployment of a generated payload: the ClusterOperator it reports (a cincy convention). */
  clusterOperator: 'operator.cincy.io/cluster-operator',
} as const;
