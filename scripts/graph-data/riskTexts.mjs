// The invented problems that blocked edges warn about. Each has a name, the conditions (see
// riskConditions.mjs) under which it most plausibly strikes, and a description that completes the
// sentence "On <these clusters>, ...". None of them describes a real bug.

const risk = (name, conds, text) => ({ name, text, conds });

/** Problems of any architecture. */
export const PROBLEMS = [
  risk('EtcdDefragStall', ['AWS', 'Azure', 'BareMetal'],
    'members of the etcd cluster holding more than 8 GiB of data may stall in the defragmentation ' +
    'that follows the update, slowing API requests for several minutes.'),
  risk('EtcdLeaderChurn', ['VSphere', 'OnPrem', 'VSphereHW'],
    'the etcd cluster may change leaders repeatedly while control-plane nodes reboot, and API ' +
    'requests can time out until the rollout finishes.'),
  risk('IngressRouterReloadLeak', ['IngressNotUpgradeable', 'AWS', 'BareMetal'],
    'router pods may leak file descriptors on every configuration reload, eventually refusing new ' +
    'connections on busy ingress controllers.'),
  risk('IngressCanaryFalseAlarm', ['Proxy', 'AzureProxy'],
    'the ingress canary check may fail behind a proxy, marking the ingress operator Degraded although ' +
    'routes keep working.'),
  risk('MachineConfigDrainTimeout', ['MCODegraded', 'RHEL', 'UPI'],
    'the machine config daemon may time out draining nodes that run pods with strict disruption ' +
    'budgets, leaving the pool stuck in Updating.'),
  risk('MachineConfigRenderLoop', ['LongLived', 'MCODegraded'],
    'the machine config controller may render a new configuration on every resync, rebooting nodes ' +
    'more than once during the update.'),
  risk('OVNGatewayRouteLoss', ['BareMetal', 'OnPrem', 'NetworkDegraded'],
    'OVN-Kubernetes may drop the default gateway route on nodes with a secondary interface, so egress ' +
    'from those nodes fails until they reboot.'),
  risk('OVNNorthboundCompaction', ['LongLived', 'NetworkDegraded'],
    'the OVN northbound database may stop compacting and grow until the ovnkube-control-plane pods ' +
    'run out of memory.'),
  risk('KubeletMemoryPressureMisread', ['BareMetal', 'RHEL'],
    'the kubelet may misreport memory pressure on nodes with more than 256 GiB of memory and evict ' +
    'workloads that fit comfortably.'),
  risk('CRIOMirrorPullStall', ['Proxy', 'UPI'],
    'CRI-O may stall pulling large images through a registry mirror, delaying pod start-up by up to ' +
    'fifteen minutes.'),
  risk('CSIAttachLimitDrop', ['AWS', 'Azure', 'GCP', 'VSphere'],
    'the CSI driver may report a lower volume attach limit, so new pods with persistent volumes stay ' +
    'Pending on full nodes.'),
  risk('PrometheusWALReplayOOM', ['LongLived', 'AWS'],
    'the in-cluster Prometheus may replay an oversized write-ahead log and be OOM-killed in a restart ' +
    'loop.'),
  risk('CatalogRefreshLoop', ['Proxy', 'StorageOperator'],
    'the Operator Lifecycle Manager may refresh catalog sources in a tight loop, raising API server ' +
    'load and delaying operator installs.'),
  risk('ConsolePluginBlankPage', ['CapConsole', 'Proxy'],
    'the web console may fail to load dynamic plugins served with a custom certificate, leaving ' +
    'plugin pages blank.'),
  risk('RegistryStorageRemigration', ['CapRegistry', 'Azure', 'OpenStack'],
    'the image registry may re-run its storage migration and reject pushes until the migration ' +
    'finishes.'),
  risk('OAuthTokenCacheSkew', ['Proxy', 'FeatureSet'],
    'the OAuth server may reject recently issued tokens for a few minutes after its pods restart, ' +
    'logging users out of the console and CLI.'),
  risk('APIServerWatchCacheGrowth', ['LongLived', 'FeatureSet'],
    'the Kubernetes API server may keep a much larger watch cache and be OOM-killed on control planes ' +
    'with 16 GiB of memory.'),
  risk('DNSUpstreamTimeout', ['UPI', 'OnPrem', 'Proxy'],
    'the DNS operator may apply a shorter upstream timeout, causing intermittent lookup failures ' +
    'against slow corporate resolvers.'),
  risk('TunedProfileStorm', ['BareMetal', 'FeatureSet'],
    'the Node Tuning Operator may re-apply tuned profiles on every node at once, briefly raising ' +
    'latency for sensitive workloads.'),
  risk('AutoscalerScaleDownBurst', ['AWS', 'GCP', 'Azure'],
    'the cluster autoscaler may remove several nodes at once right after the update, before ' +
    'replacement capacity is ready.'),
  risk('MachineProviderIDMismatch', ['OpenStack', 'Nutanix', 'IBMCloud', 'VSphere'],
    'the Machine API may fail to match machines to nodes whose provider ID changed format, blocking ' +
    'machine set scale-up.'),
  risk('CredentialsRootRotation', ['AWS', 'AWSSTS', 'GCP'],
    'the cloud credential operator may rotate credentials mid-update, interrupting components that ' +
    'cached the previous secret.'),
  risk('KeepalivedVIPFlap', ['OnPrem', 'BareMetal', 'Nutanix'],
    'keepalived may move the API virtual IP between control-plane nodes repeatedly during the update, ' +
    'causing short API outages.'),
  risk('APILoadBalancerProbeDrift', ['OnPrem', 'OpenStack'],
    'the on-cluster load balancer may mark healthy API servers as down when their health checks ' +
    'answer slowly, leaving a single backend.'),
  risk('MultusAttachDelay', ['BareMetal', 'NetworkDegraded'],
    'Multus may take several minutes to attach secondary networks to new pods.'),
  risk('EgressIPFailoverStuck', ['VSphere', 'BareMetal', 'AWS'],
    'egress IP addresses may not move off an unreachable node, interrupting outbound traffic that ' +
    'depends on them.'),
  risk('PreconditionCheckLoop', ['LongLived', 'IngressNotUpgradeable'],
    'the cluster version operator may re-run update preconditions in a loop and report Progressing ' +
    'without advancing.'),
  risk('InsightsGatherTimeout', ['CapInsights', 'Proxy'],
    'the Insights operator may time out gathering data on large clusters and report Degraded.'),
  risk('BuildSecretMountFailure', ['CapBuild', 'Proxy'],
    'builds that mount secrets may fail to start because the build controller resolves projected ' +
    'secret names incorrectly.'),
  risk('SampleImportThrottled', ['Proxy', 'UPI'],
    'the samples operator may import every sample image stream at once and hit registry rate limits, ' +
    'leaving it Degraded.'),
  risk('ProvisioningDHCPRangeLoss', ['BareMetal'],
    'the bare-metal provisioning network may lose its DHCP range, so newly added hosts fail to ' +
    'provision.'),
  risk('IdentityProviderProbeFailure', ['Proxy', 'AzureProxy'],
    'the authentication operator may fail to reach external identity providers through the proxy and ' +
    'report Degraded.'),
  risk('SnapshotControllerCrash', ['StorageOperator', 'VSphere', 'Azure'],
    'the volume snapshot controller may crash on snapshots created before the update, blocking new ' +
    'snapshots.'),
  risk('SchedulerPriorityInversion', ['FeatureSet', 'BareMetal'],
    'the scheduler may place low-priority pods ahead of pending high-priority pods while nodes roll.'),
  risk('MTUMigrationStall', ['NetworkDegraded', 'OnPrem'],
    'an MTU migration that is already in progress may stall when the network operator restarts, ' +
    'leaving nodes with mixed MTUs.'),
  risk('LogForwarderBackpressure', ['LoggingOperator'],
    'log collectors may stop forwarding under back-pressure from the new output buffer limits, ' +
    'dropping application logs.'),
  risk('ServiceCAReissueGap', ['LongLived', 'StorageOperator'],
    'the service CA may re-issue serving certificates before all consumers trust the new bundle, ' +
    'breaking webhook calls for a few minutes.'),
  risk('NodeImageBootstall', ['AWS', 'GCP', 'Azure', 'LongLived'],
    'nodes created from an old boot image may fail to join after the update because the first-boot ' +
    'service no longer understands their config.'),
  risk('PodSecurityLabelSync', ['FeatureSet', 'UPI'],
    'the namespace label syncer may raise pod security enforcement on namespaces it manages, blocking ' +
    'privileged workloads.'),
  risk('MetricsServerCertExpiry', ['Proxy', 'LongLived'],
    'the metrics server may keep serving an expired certificate after rotation, so horizontal pod ' +
    'autoscalers stop scaling.'),
];

/** Problems of arm64 nodes only: their blocked edges name `<version>+arm64`. */
export const ARM64_PROBLEMS = [
  risk('ARM64KernelPageSize', ['BareMetal'],
    'nodes running on arm64 may boot a kernel configured for 64k pages, and workloads built for 4k ' +
    'pages fail to start.'),
  risk('ARM64VirtioNetStall', ['AWS', 'Azure', 'GCP'],
    'virtual machines running on arm64 may lose network connectivity under sustained traffic because ' +
    'of a virtio-net driver regression.'),
  risk('ARM64MirroredManifestMismatch', ['UPI', 'Proxy'],
    'nodes running on arm64 may pull the amd64 variant of some operator images from mirrored ' +
    'registries and crash-loop.'),
  risk('ARM64HugepageReservation', ['BareMetal', 'AWS'],
    'nodes running on arm64 may reserve hugepages of the wrong size, so pods requesting 2Mi hugepages ' +
    'stay Pending.'),
  risk('ARM64FirmwareClockDrift', ['BareMetal', 'OnPrem'],
    'hosts running on arm64 with older firmware may see their clocks drift after the update, failing ' +
    'certificate validation.'),
];

/** A second sentence some messages end with. */
export const SECOND_SENTENCES = [
  'Updating to a release that carries the fix avoids the problem.',
  'Clusters that are not exposed can update safely.',
  'The linked article describes a workaround that can be applied before updating.',
  'Pausing the affected machine config pools until the fix ships avoids the impact.',
  'A fix is planned for an upcoming z-stream.',
  'Workloads recover once the affected pods are restarted.',
];
