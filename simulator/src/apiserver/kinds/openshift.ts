// The OpenShift kinds the mock cluster serves, each as its CustomResourceDefinition declares it on a real
// cluster (field names of openshift/api; the printer columns `oc get` shows): config.openshift.io/v1
// ClusterVersion, ClusterOperator, Proxy, Infrastructure and FeatureGate, and machineconfiguration.openshift.io/v1
// MachineConfigPool and MachineConfig.
import { ACCEPT_RISKS_GATE } from 'cincy/agent/acceptRisks';
import { condition, LABEL_SELECTOR, OBJECT_REFERENCE } from './meta.js';
import { conditionPath, crdColumn } from './printing.js';
import { bool, define, free, int, intOrString, arrayOf, obj, ref, str, time, type Schema } from './schema.js';
import type { ResourceKind, RuleViolation, StoredObject } from './types.js';

const config = (k: Omit<ResourceKind, 'group' | 'version' | 'definition' | 'crd' | 'generation'>): ResourceKind => ({
  group: 'config.openshift.io',
  version: 'v1',
  crd: true,
  generation: true,
  definition: `io.openshift.config.v1.${k.kind}`,
  ...k,
});

const mco = (k: Omit<ResourceKind, 'group' | 'version' | 'definition' | 'crd' | 'generation'>): ResourceKind => ({
  group: 'machineconfiguration.openshift.io',
  version: 'v1',
  crd: true,
  generation: true,
  definition: `io.openshift.machineconfiguration.v1.${k.kind}`,
  ...k,
});

/** The condition of ClusterVersion and ClusterOperator (ClusterOperatorStatusCondition). */
const OPERATOR_CONDITION = obj(
  "A condition of the operator's managed components.",
  {
    type: str('The aspect reported (Available, Progressing, Degraded, Upgradeable, …).'),
    status: str('True, False or Unknown.'),
    lastTransitionTime: time('When the status last changed.'),
    reason: str('Why, in one CamelCase word.'),
    message: str('Details for people; may span lines.'),
  },
  ['type', 'status', 'lastTransitionTime'],
);

const CAPABILITIES = [
  'openshift-samples',
  'baremetal',
  'marketplace',
  'Console',
  'Insights',
  'Storage',
  'CSISnapshot',
  'NodeTuning',
  'MachineAPI',
  'Build',
  'DeploymentConfig',
  'ImageRegistry',
  'OperatorLifecycleManager',
  'CloudCredential',
  'Ingress',
  'CloudControllerManager',
  'OperatorLifecycleManagerV1',
  'OptionalMonitoring',
];
const capabilityList = (description: string): Schema =>
  arrayOf(description, { type: 'string', enum: CAPABILITIES, description: 'An optional core component.' });

const RELEASE = obj(
  'A release: its version, its image, and what the update service says of it.',
  {
    version: str('Semantic version of the release.'),
    image: str('Pull spec of the release image.'),
    url: str('Where to read about the release (its errata).'),
    channels: arrayOf('Update channels the release is in.', { type: 'string' }, { mergeSet: true }),
    architecture: str('Multi for a multi-architecture release; empty otherwise.', { enum: ['Multi', ''] }),
  },
  // No field is required: the real CRD requires none either.
);

const RISK = obj(
  'A known issue of an update and the clusters it concerns.',
  {
    name: str('CamelCase name of the risk.'),
    message: str('What the issue is.'),
    url: str('Where to read about it.'),
    matchingRules: arrayOf(
      'How to tell whether the cluster is exposed, first match wins.',
      obj(
        'A rule: Always, or a PromQL query answering 1 (exposed) or 0.',
        {
          type: str('Always or PromQL.', { enum: ['Always', 'PromQL'] }),
          promql: obj('The query.', { promql: str('PromQL.') }, ['promql']),
        },
        ['type'],
      ),
    ),
    conditions: arrayOf(
      'Applies: whether the risk applies to this cluster (accept-risks feature).',
      condition('A condition.'),
      {
        mergeKey: 'type',
        gate: ACCEPT_RISKS_GATE,
      },
    ),
  },
  ['name', 'message', 'url', 'matchingRules'],
);

/** The real CRD's CEL rules on spec.desiredUpdate (x-kubernetes-validations), each broken one with its message. */
function clusterVersionRules(next: StoredObject): RuleViolation[] {
  const update = (next.spec as { desiredUpdate?: Record<string, unknown> } | undefined)?.desiredUpdate;
  if (!update) return [];
  const broken = (message: string): RuleViolation => ({
    field: 'spec.desiredUpdate',
    reason: 'FieldValueInvalid',
    message: `Invalid value: "object": ${message}`,
  });
  const out: RuleViolation[] = [];
  const { architecture, image, version } = update;
  if (architecture !== undefined && image !== undefined && architecture !== '' && image !== '')
    out.push(broken('cannot set both Architecture and Image'));
  if (architecture !== undefined && architecture !== '' && version === '')
    out.push(broken('Version must be set if Architecture is set'));
  return out;
}

export const CLUSTER_VERSION = config({
  plural: 'clusterversions',
  kind: 'ClusterVersion',
  namespaced: false,
  rules: clusterVersionRules,
  status: true,
  schema: obj(
    "The cluster-version-operator's configuration: the update channel, the update service, and the update wanted.",
    {
      spec: obj(
        'What the cluster is to run.',
        {
          clusterID: str('Unique ID of the cluster (an RFC 4122 UUID).'),
          desiredUpdate: obj('The release to update to; setting it starts an update.', {
            version: str('Version to update to.'),
            image: str('Release image to update to (when the version is not among the available updates).'),
            force: bool('Update even if verification or Upgradeable checks fail.'),
            architecture: str('Multi to migrate to multi-architecture releases (with a version, without an image).', {
              enum: ['Multi', ''],
            }),
            acceptRisks: arrayOf(
              'Conditional update risks accepted for this update, by name.',
              obj('An accepted risk.', { name: str('Name of the risk.') }, ['name']),
              { mergeKey: 'name', gate: ACCEPT_RISKS_GATE },
            ),
          }),
          upstream: str('URL of the update service (default: the Red Hat one).'),
          channel: str('Update channel (stable-4.16, fast-4.16, …).'),
          capabilities: obj('Optional core components to install.', {
            baselineCapabilitySet: str('The base set (None, v4.11, …, vCurrent).'),
            additionalEnabledCapabilities: capabilityList('Components added to the base set.'),
          }),
          overrides: arrayOf(
            'Objects the operator stops managing.',
            obj(
              'An object not managed.',
              {
                kind: str('Kind of the object.'),
                group: str('API group of the kind.'),
                namespace: str('Namespace of the object.'),
                name: str('Name of the object.'),
                unmanaged: bool('The operator leaves it alone.'),
              },
              ['kind', 'group', 'namespace', 'name', 'unmanaged'],
            ),
          ),
          signatureStores: arrayOf(
            'Where release signatures are fetched from instead of the default stores.',
            obj(
              'A signature store.',
              { url: str('Its URL.'), ca: obj('Its CA.', { name: str('ConfigMap in openshift-config.') }) },
              ['url'],
            ),
          ),
        },
        ['clusterID'],
      ),
      status: obj(
        'The release running, the updates offered, and the update history.',
        {
          desired: ref('io.openshift.config.v1.Release', 'The release the cluster is reconciling to.'),
          history: arrayOf(
            'Recent updates, newest first.',
            obj(
              'One update.',
              {
                state: str('Completed once rolled out fully; Partial otherwise.'),
                startedTime: time('When it started.'),
                completionTime: { ...time('When it completed; null while under way.'), nullable: true },
                version: str('Version updated to.'),
                image: str('Release image updated to.'),
                verified: bool('Its signature was verified.'),
                acceptedRisks: str('Risks accepted to start it.'),
              },
              ['state', 'startedTime', 'completionTime', 'image', 'verified'],
            ),
          ),
          observedGeneration: int('The generation of the spec the status is about.', 'int64'),
          versionHash: str('Fingerprint of the content being applied (internal).'),
          capabilities: obj('Optional core components.', {
            enabledCapabilities: capabilityList('Components installed.'),
            knownCapabilities: capabilityList('Components this version knows.'),
          }),
          conditions: arrayOf(
            'Conditions (Available, Failing, Progressing, RetrievedUpdates, Upgradeable, …).',
            OPERATOR_CONDITION,
            {
              mergeKey: 'type',
            },
          ),
          availableUpdates: {
            ...arrayOf('Updates recommended for the cluster.', ref('io.openshift.config.v1.Release', '')),
            nullable: true,
          },
          conditionalUpdateRisks: arrayOf(
            'Every risk of the conditional updates once, with whether it applies (accept-risks feature).',
            obj('A risk and its Applies condition.', RISK.properties!, [
              'name',
              'message',
              'url',
              'matchingRules',
              'conditions',
            ]),
            { mergeKey: 'name', gate: ACCEPT_RISKS_GATE },
          ),
          conditionalUpdates: arrayOf(
            'Updates recommended only to clusters not exposed to their risks.',
            obj(
              'A conditional update.',
              {
                release: ref('io.openshift.config.v1.Release', 'The release updated to.'),
                riskNames: arrayOf(
                  'The names of its risks, in conditionalUpdateRisks (accept-risks feature).',
                  { type: 'string' },
                  { mergeSet: true, gate: ACCEPT_RISKS_GATE },
                ),
                risks: arrayOf('Its risks.', RISK, { mergeKey: 'name' }),
                conditions: arrayOf(
                  'Whether it is recommended to this cluster (Recommended).',
                  condition('A condition.'),
                  {
                    mergeKey: 'type',
                  },
                ),
              },
              ['release', 'risks'],
            ),
          ),
        },
        ['desired', 'observedGeneration', 'versionHash'],
      ),
    },
    ['spec'],
  ),
  columns: [
    crdColumn('Version', 'string', '.status.history[?(@.state=="Completed")].version'),
    crdColumn('Available', 'string', conditionPath('Available', 'status')),
    crdColumn('Progressing', 'string', conditionPath('Progressing', 'status')),
    crdColumn('Since', 'date', conditionPath('Progressing', 'lastTransitionTime')),
    crdColumn('Status', 'string', conditionPath('Progressing', 'message')),
  ],
});

export const CLUSTER_OPERATOR = config({
  plural: 'clusteroperators',
  kind: 'ClusterOperator',
  namespaced: false,
  shortNames: ['co'],
  status: true,
  schema: obj(
    'The state of an operator, as it reports it to the rest of the cluster.',
    {
      spec: obj('Empty: an operator is configured elsewhere.', {}),
      status: obj('What the operator reports.', {
        conditions: arrayOf(
          'Conditions (Available, Progressing, Degraded, Upgradeable, EvaluationConditionsDetected).',
          OPERATOR_CONDITION,
          {
            mergeKey: 'type',
          },
        ),
        versions: {
          ...arrayOf(
            'Versions of the operator ("operator") and of its operands.',
            obj('A version.', { name: str('The operand.'), version: str('Its version.') }, ['name', 'version']),
          ),
          nullable: true,
        },
        relatedObjects: {
          ...arrayOf(
            'Objects worth looking at about the operator (what `oc adm inspect` collects).',
            obj(
              'An object.',
              {
                group: str('API group.'),
                resource: str('Resource.'),
                namespace: str('Namespace.'),
                name: str('Name.'),
              },
              ['group', 'resource', 'name'],
            ),
          ),
          nullable: true,
        },
        extension: { ...free('Status particular to the operator.'), nullable: true },
      }),
    },
    ['spec'],
  ),
  columns: [
    crdColumn('Version', 'string', '.status.versions[?(@.name=="operator")].version', 'The version of the operator.'),
    crdColumn('Available', 'string', conditionPath('Available', 'status'), 'Whether the operator runs and is stable.'),
    crdColumn(
      'Progressing',
      'string',
      conditionPath('Progressing', 'status'),
      'Whether the operator is rolling out a change.',
    ),
    crdColumn('Degraded', 'string', conditionPath('Degraded', 'status'), 'Whether the operator is degraded.'),
    crdColumn('Since', 'date', conditionPath('Available', 'lastTransitionTime'), 'When Available last changed.'),
    crdColumn('Message', 'string', conditionPath('Progressing', 'message'), 'What the operator is doing.'),
  ],
});

export const PROXY = config({
  plural: 'proxies',
  kind: 'Proxy',
  namespaced: false,
  status: true,
  schema: obj(
    'The cluster-wide proxy (cluster is the only one).',
    {
      spec: obj('The proxy to use.', {
        httpProxy: str('Proxy for HTTP requests.'),
        httpsProxy: str('Proxy for HTTPS requests.'),
        noProxy: str('Comma-separated destinations that bypass the proxy.'),
        readinessEndpoints: arrayOf('URLs that check the proxy works.', { type: 'string' }),
        trustedCA: obj('ConfigMap in openshift-config with CAs to trust.', { name: str('Its name.') }, ['name']),
      }),
      status: obj('The proxy in effect.', {
        httpProxy: str('Proxy for HTTP requests.'),
        httpsProxy: str('Proxy for HTTPS requests.'),
        noProxy: str('Destinations that bypass the proxy.'),
      }),
    },
    ['spec'],
  ),
});

const PLATFORMS = [
  'AWS',
  'Azure',
  'BareMetal',
  'GCP',
  'Libvirt',
  'OpenStack',
  'None',
  'VSphere',
  'oVirt',
  'IBMCloud',
  'KubeVirt',
  'EquinixMetal',
  'PowerVS',
  'AlibabaCloud',
  'Nutanix',
  'External',
];

export const INFRASTRUCTURE = config({
  plural: 'infrastructures',
  kind: 'Infrastructure',
  namespaced: false,
  status: true,
  schema: obj(
    'Where the cluster runs (cluster is the only one).',
    {
      spec: obj('What was given at installation.', {
        cloudConfig: obj('ConfigMap with the cloud provider configuration.', {
          name: str('Its name.'),
          key: str('Its key.'),
        }),
        platformSpec: obj(
          'The platform and its settings.',
          { type: str('The platform.', { enum: PLATFORMS }) },
          undefined,
          { preserveUnknown: true },
        ),
      }),
      status: obj('What the installer and operators found.', {
        infrastructureName: str('Unique name of the cluster, used to tag cloud resources.'),
        platform: str('The platform (deprecated: platformStatus.type).', { enum: PLATFORMS }),
        platformStatus: obj(
          'The platform and what is known of it.',
          {
            type: str('The platform.', { enum: PLATFORMS }),
            aws: obj('On AWS.', { region: str('The region.') }, undefined, { preserveUnknown: true }),
            gcp: obj('On GCP.', { projectID: str('The project.'), region: str('The region.') }, undefined, {
              preserveUnknown: true,
            }),
            azure: free('On Azure.'),
          },
          undefined,
          { preserveUnknown: true },
        ),
        etcdDiscoveryDomain: str('Deprecated; empty.'),
        apiServerURL: str('URL of the API server, for clients outside.'),
        apiServerInternalURI: str('URI of the API server, for nodes and pods.'),
        controlPlaneTopology: str('HighlyAvailable, SingleReplica, External, HighlyAvailableArbiter or DualReplica.'),
        infrastructureTopology: str('HighlyAvailable or SingleReplica: how the infrastructure nodes are run.'),
        cpuPartitioning: str('None or AllNodes.'),
      }),
    },
    ['spec'],
  ),
});

const FEATURE_LIST = (description: string): Schema =>
  arrayOf(description, obj('A feature gate.', { name: str('Its name.') }, ['name']));

export const FEATURE_GATE = config({
  plural: 'featuregates',
  kind: 'FeatureGate',
  namespaced: false,
  status: true,
  schema: obj(
    'The feature set the cluster runs (cluster is the only one).',
    {
      spec: obj('The feature set chosen.', {
        featureSet: str('Default, TechPreviewNoUpgrade, DevPreviewNoUpgrade or CustomNoUpgrade (empty: Default).', {
          enum: ['', 'Default', 'TechPreviewNoUpgrade', 'DevPreviewNoUpgrade', 'CustomNoUpgrade'],
        }),
        customNoUpgrade: {
          ...obj('The gates of CustomNoUpgrade.', {
            enabled: arrayOf('Gates enabled.', { type: 'string' }),
            disabled: arrayOf('Gates disabled.', { type: 'string' }),
          }),
          nullable: true,
        },
      }),
      status: obj('The gates in effect, per version.', {
        conditions: arrayOf(
          'Conditions.',
          condition('A condition.', { observedGeneration: int('Generation observed.', 'int64') }),
          {
            mergeKey: 'type',
          },
        ),
        featureGates: arrayOf(
          'The gates of each version the cluster runs.',
          obj(
            'The gates of one version.',
            {
              version: str('The version.'),
              enabled: FEATURE_LIST('Gates enabled.'),
              disabled: FEATURE_LIST('Gates disabled.'),
            },
            ['version'],
          ),
          { mergeKey: 'version' },
        ),
      }),
    },
    ['spec'],
  ),
});

export const MACHINE_CONFIG_POOL = mco({
  plural: 'machineconfigpools',
  kind: 'MachineConfigPool',
  namespaced: false,
  shortNames: ['mcp'],
  status: true,
  schema: obj(
    'A set of nodes that run one machine configuration.',
    {
      spec: obj('Its nodes and configuration, and how they are updated.', {
        machineConfigSelector: ref(LABEL_SELECTOR.ref!, 'The MachineConfigs rendered into its configuration.'),
        nodeSelector: ref(LABEL_SELECTOR.ref!, 'Its nodes.'),
        paused: bool('No node is updated while set.'),
        maxUnavailable: intOrString('Nodes (or a percentage) that may be unavailable at once in an update; default 1.'),
        configuration: ref(
          'io.openshift.machineconfiguration.v1.MachineConfigPoolStatusConfiguration',
          'The configuration its nodes are to run.',
        ),
      }),
      status: obj('Where its nodes stand.', {
        observedGeneration: int('The generation of the spec last acted on.', 'int64'),
        configuration: ref(
          'io.openshift.machineconfiguration.v1.MachineConfigPoolStatusConfiguration',
          'The configuration its nodes run.',
        ),
        machineCount: int('Nodes in the pool.'),
        updatedMachineCount: int('Nodes on the current configuration.'),
        readyMachineCount: int('Nodes ready.'),
        unavailableMachineCount: int('Nodes updating or not ready.'),
        degradedMachineCount: int('Nodes whose update failed.'),
        conditions: arrayOf(
          'Conditions (Updated, Updating, Degraded, NodeDegraded, RenderDegraded).',
          condition('A condition.'),
        ),
        certExpirys: arrayOf('Certificates and when they expire.', free('A certificate.')),
      }),
    },
    ['spec'],
  ),
  columns: [
    crdColumn('Config', 'string', '.status.configuration.name'),
    crdColumn('Updated', 'string', conditionPath('Updated', 'status'), 'Every node runs the pool configuration.'),
    crdColumn(
      'Updating',
      'string',
      conditionPath('Updating', 'status'),
      'A node is being updated to the pool configuration.',
    ),
    crdColumn('Degraded', 'string', conditionPath('Degraded', 'status'), 'An update or the configuration failed.'),
    crdColumn('MachineCount', 'number', '.status.machineCount', 'Nodes in the pool.'),
    crdColumn('ReadyMachineCount', 'number', '.status.readyMachineCount', 'Nodes ready.'),
    crdColumn('UpdatedMachineCount', 'number', '.status.updatedMachineCount', 'Nodes on the current configuration.'),
    crdColumn('DegradedMachineCount', 'number', '.status.degradedMachineCount', 'Nodes whose update failed.'),
    crdColumn('Age', 'date', '.metadata.creationTimestamp'),
  ],
});

export const MACHINE_CONFIG = mco({
  plural: 'machineconfigs',
  kind: 'MachineConfig',
  namespaced: false,
  shortNames: ['mc'],
  schema: obj('Configuration of a machine: an Ignition config, kernel arguments, the OS image.', {
    spec: obj('The configuration.', {
      osImageURL: str('OS image the machine runs.'),
      baseOSExtensionsContainerImage: str('Extensions image matching the OS image.'),
      config: free('Ignition config.'),
      kernelArguments: { ...arrayOf('Kernel arguments added.', { type: 'string' }), nullable: true },
      extensions: arrayOf('OS extensions installed.', { type: 'string' }),
      fips: bool('FIPS mode.'),
      kernelType: str('default, realtime or 64k-pages.'),
    }),
  }),
  columns: [
    crdColumn(
      'GeneratedByController',
      'string',
      '.metadata.annotations.machineconfiguration\\.openshift\\.io/generated-by-controller-version',
      'Version of the controller that rendered it; empty when not rendered.',
    ),
    crdColumn('IgnitionVersion', 'string', '.spec.config.ignition.version', 'Ignition version of its config.'),
    crdColumn('Age', 'date', '.metadata.creationTimestamp'),
  ],
});

export const OPENSHIFT_KINDS = [
  CLUSTER_VERSION,
  CLUSTER_OPERATOR,
  PROXY,
  INFRASTRUCTURE,
  FEATURE_GATE,
  MACHINE_CONFIG_POOL,
  MACHINE_CONFIG,
];

// Shared definitions the kinds above refer to by name.
define('io.openshift.config.v1.Release', RELEASE);
define(
  'io.openshift.machineconfiguration.v1.MachineConfigPoolStatusConfiguration',
  obj('A rendered MachineConfig and the MachineConfigs it was made of.', {
    name: str('Name of the rendered MachineConfig.'),
    kind: str('MachineConfig.'),
    apiVersion: str('machineconfiguration.openshift.io/v1.'),
    uid: str('Its UID.'),
    source: arrayOf('The MachineConfigs it was made of.', ref(OBJECT_REFERENCE.ref!, '')),
  }),
);
