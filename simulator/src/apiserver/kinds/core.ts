// The core group (v1) kinds the mock cluster serves, with the columns the API server's printers give them.
import { condition, OBJECT_REFERENCE, POD_SPEC } from './meta.js';
import { ageColumn, orNone, since, specOf, statusOf } from './printing.js';
import { bool, free, int, arrayOf, map, obj, ref, str, time } from './schema.js';
import type { StoredObject, ResourceKind } from './types.js';

const core = (k: Omit<ResourceKind, 'group' | 'version' | 'definition'>): ResourceKind => ({
  group: '',
  version: 'v1',
  definition: `io.k8s.api.core.v1.${k.kind}`,
  ...k,
});

interface NodeStatus {
  conditions?: Array<{ type: string; status: string }>;
  addresses?: Array<{ type: string; address: string }>;
  nodeInfo?: Record<string, string>;
}

/** A node's roles, from its node-role.kubernetes.io/<role> labels (and kubernetes.io/role), sorted. */
export function nodeRoles(n: StoredObject): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(n.metadata.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/') && k.length > 'node-role.kubernetes.io/'.length)
      roles.add(k.slice('node-role.kubernetes.io/'.length));
    else if (k === 'kubernetes.io/role' && v) roles.add(v);
  }
  return [...roles].sort();
}

function nodeStatusCell(n: StoredObject): string {
  const ready = statusOf<NodeStatus>(n).conditions?.find((c) => c.type === 'Ready');
  const status = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (specOf<{ unschedulable?: boolean }>(n).unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

const address = (n: StoredObject, type: string): string =>
  orNone(statusOf<NodeStatus>(n).addresses?.find((a) => a.type === type)?.address);
const nodeInfo = (n: StoredObject, field: string): string => statusOf<NodeStatus>(n).nodeInfo?.[field] || '<unknown>';

const NODE_CONDITION = condition('A condition of the node (Ready, MemoryPressure, DiskPressure, PIDPressure).', {
  lastHeartbeatTime: time('When the kubelet last reported it.'),
});

export const NODE = core({
  plural: 'nodes',
  kind: 'Node',
  namespaced: false,
  shortNames: ['no'],
  status: true,
  schema: obj('A machine of the cluster, as its kubelet registers it.', {
    spec: obj('How the node is to be used.', {
      unschedulable: bool('New pods are not scheduled onto it (a cordon).'),
      taints: arrayOf(
        'Taints that repel pods which do not tolerate them.',
        obj(
          'A taint.',
          {
            key: str('Key of the taint.'),
            value: str('Value of the taint.'),
            effect: str('NoSchedule, PreferNoSchedule or NoExecute.'),
            timeAdded: time('When it was added (NoExecute taints).'),
          },
          ['key', 'effect'],
        ),
      ),
      podCIDR: str('The pod IP range given to the node.'),
      podCIDRs: arrayOf('The pod IP ranges given to the node.', { type: 'string' }, { mergeSet: true }),
      providerID: str("The node's ID at its cloud provider."),
    }),
    status: obj('What the kubelet last reported.', {
      capacity: map('Resources the node has.'),
      allocatable: map('Resources pods may use.'),
      conditions: arrayOf('Conditions of the node.', NODE_CONDITION, { mergeKey: 'type' }),
      addresses: arrayOf(
        'Addresses of the node.',
        obj('An address.', { type: str('Hostname, InternalIP or ExternalIP.'), address: str('The address.') }, [
          'type',
          'address',
        ]),
        { mergeKey: 'type' },
      ),
      daemonEndpoints: free('Ports the node daemons listen on.'),
      nodeInfo: obj('What runs on the node.', {
        machineID: str('Machine ID.'),
        systemUUID: str('System UUID.'),
        bootID: str('Boot ID (changes on each reboot).'),
        kernelVersion: str('Kernel version (uname -r).'),
        osImage: str('Operating system image (/etc/os-release).'),
        containerRuntimeVersion: str('Container runtime and its version.'),
        kubeletVersion: str('Kubelet version.'),
        kubeProxyVersion: str('Kube-proxy version (deprecated).'),
        operatingSystem: str('Operating system.'),
        architecture: str('CPU architecture.'),
      }),
      images: arrayOf('Images on the node.', free('An image.')),
      volumesInUse: arrayOf('Volumes in use.', { type: 'string' }),
    }),
  }),
  columns: [
    { name: 'Status', type: 'string', description: 'The status of the node.', cell: nodeStatusCell },
    {
      name: 'Roles',
      type: 'string',
      description: 'The roles of the node.',
      cell: (n) => orNone(nodeRoles(n).join(',')),
    },
    ageColumn,
    {
      name: 'Version',
      type: 'string',
      description: 'Kubelet version.',
      cell: (n) => statusOf<NodeStatus>(n).nodeInfo?.kubeletVersion ?? '',
    },
    {
      name: 'Internal-IP',
      type: 'string',
      priority: 1,
      description: 'Addresses of the node.',
      cell: (n) => address(n, 'InternalIP'),
    },
    {
      name: 'External-IP',
      type: 'string',
      priority: 1,
      description: 'Addresses of the node.',
      cell: (n) => address(n, 'ExternalIP'),
    },
    { name: 'OS-Image', type: 'string', priority: 1, description: 'OS image.', cell: (n) => nodeInfo(n, 'osImage') },
    {
      name: 'Kernel-Version',
      type: 'string',
      priority: 1,
      description: 'Kernel version.',
      cell: (n) => nodeInfo(n, 'kernelVersion'),
    },
    {
      name: 'Container-Runtime',
      type: 'string',
      priority: 1,
      description: 'Container runtime version.',
      cell: (n) => nodeInfo(n, 'containerRuntimeVersion'),
    },
  ],
  fields: { 'spec.unschedulable': (n) => String(!!specOf<{ unschedulable?: boolean }>(n).unschedulable) },
});

export const NAMESPACE = core({
  plural: 'namespaces',
  kind: 'Namespace',
  namespaced: false,
  names: 'dns1123Label',
  shortNames: ['ns'],
  status: true,
  schema: obj('A scope for names.', {
    spec: obj('How the namespace is kept.', {
      finalizers: arrayOf('What must happen before it is removed.', { type: 'string' }),
    }),
    status: obj('Where the namespace stands.', {
      phase: str('Active or Terminating.'),
      conditions: arrayOf('Conditions of the namespace.', condition('A condition.'), { mergeKey: 'type' }),
    }),
  }),
  columns: [
    {
      name: 'Status',
      type: 'string',
      description: 'The status of the namespace.',
      cell: (o) => statusOf<{ phase?: string }>(o).phase ?? '',
    },
    ageColumn,
  ],
  fields: { 'status.phase': (o) => statusOf<{ phase?: string }>(o).phase ?? '' },
});

const dataCount = (o: StoredObject): number =>
  Object.keys((o.data as object | undefined) ?? {}).length +
  Object.keys((o.binaryData as object | undefined) ?? {}).length;

export const CONFIG_MAP = core({
  plural: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
  shortNames: ['cm'],
  schema: obj('Configuration data for pods to read.', {
    data: map('Text entries.'),
    binaryData: map('Binary entries, base64-encoded.', { type: 'string', format: 'byte' }),
    immutable: bool('Its data cannot change.'),
  }),
  columns: [{ name: 'Data', type: 'integer', description: 'Number of entries.', cell: dataCount }, ageColumn],
});

export const SECRET = core({
  plural: 'secrets',
  kind: 'Secret',
  namespaced: true,
  schema: obj('Confidential data for pods to read.', {
    data: map('Entries, base64-encoded.', { type: 'string', format: 'byte' }),
    stringData: map('Entries as text, merged into data on writing.'),
    type: str('What the secret holds (Opaque, kubernetes.io/tls, …).'),
    immutable: bool('Its data cannot change.'),
  }),
  columns: [
    { name: 'Type', type: 'string', description: 'Type of the secret.', cell: (o) => String(o.type ?? '') },
    { name: 'Data', type: 'integer', description: 'Number of entries.', cell: dataCount },
    ageColumn,
  ],
  fields: { type: (o) => String(o.type ?? '') },
});

export const SERVICE_ACCOUNT = core({
  plural: 'serviceaccounts',
  kind: 'ServiceAccount',
  namespaced: true,
  shortNames: ['sa'],
  schema: obj('An identity for processes in pods.', {
    secrets: arrayOf('Secrets of the account.', ref(OBJECT_REFERENCE.ref!, ''), { mergeKey: 'name' }),
    imagePullSecrets: arrayOf('Secrets for pulling images.', obj('A secret.', { name: str('Its name.') }), {
      mergeKey: 'name',
    }),
    automountServiceAccountToken: bool('Pods get its token mounted.'),
  }),
  columns: [
    {
      name: 'Secrets',
      type: 'integer',
      description: 'Number of secrets.',
      cell: (o) => ((o.secrets as unknown[] | undefined) ?? []).length,
    },
    ageColumn,
  ],
});

interface ServiceSpec {
  type?: string;
  clusterIP?: string;
  externalIPs?: string[];
  ports?: Array<{ port: number; protocol?: string; nodePort?: number }>;
  selector?: Record<string, string>;
}

export const SERVICE = core({
  plural: 'services',
  kind: 'Service',
  namespaced: true,
  names: 'dns1035Label',
  shortNames: ['svc'],
  status: true,
  schema: obj('A name and address for a set of pods.', {
    spec: obj(
      'What the service serves.',
      {
        type: str('ClusterIP, NodePort, LoadBalancer or ExternalName.'),
        clusterIP: str('Its address in the cluster.'),
        selector: map('Labels of the pods it sends to.'),
        ports: arrayOf(
          'Ports it serves.',
          obj(
            'A port.',
            {
              name: str('Name of the port.'),
              port: int('Port number.'),
              targetPort: { intOrString: true, description: "Port of the pods' containers." },
              protocol: str('TCP, UDP or SCTP.'),
              nodePort: int('Port on every node (NodePort, LoadBalancer).'),
            },
            ['port'],
          ),
          { mergeKey: 'port' },
        ),
      },
      undefined,
      { preserveUnknown: true },
    ),
    status: free('Load balancer state.'),
  }),
  columns: [
    {
      name: 'Type',
      type: 'string',
      description: 'Type of the service.',
      cell: (o) => specOf<ServiceSpec>(o).type ?? 'ClusterIP',
    },
    {
      name: 'Cluster-IP',
      type: 'string',
      description: 'Address in the cluster.',
      cell: (o) => orNone(specOf<ServiceSpec>(o).clusterIP),
    },
    {
      name: 'External-IP',
      type: 'string',
      description: 'External addresses.',
      cell: (o) => orNone(specOf<ServiceSpec>(o).externalIPs?.join(',')),
    },
    {
      name: 'Port(s)',
      type: 'string',
      description: 'Ports served.',
      cell: (o) =>
        orNone(
          (specOf<ServiceSpec>(o).ports ?? [])
            .map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`)
            .join(','),
        ),
    },
    ageColumn,
    {
      name: 'Selector',
      type: 'string',
      priority: 1,
      description: 'Labels of the pods it sends to.',
      cell: (o) =>
        orNone(
          Object.entries(specOf<ServiceSpec>(o).selector ?? {})
            .map(([k, v]) => `${k}=${v}`)
            .join(','),
        ),
    },
  ],
});

interface PodStatus {
  phase?: string;
  reason?: string;
  podIP?: string;
  nominatedNodeName?: string;
  containerStatuses?: Array<{ ready?: boolean; restartCount?: number }>;
}

export const POD = core({
  plural: 'pods',
  kind: 'Pod',
  namespaced: true,
  shortNames: ['po'],
  status: true,
  categories: ['all'],
  schema: obj('Containers run together on one node.', {
    spec: ref(POD_SPEC.ref!, 'What the pod runs and where.'),
    status: obj(
      'Where the pod stands.',
      {
        phase: str('Pending, Running, Succeeded, Failed or Unknown.'),
        conditions: arrayOf(
          'Conditions of the pod (PodScheduled, Initialized, ContainersReady, Ready).',
          condition('A condition.', { lastProbeTime: time('When it was last probed.') }),
          { mergeKey: 'type' },
        ),
        hostIP: str('Address of its node.'),
        podIP: str('Its address.'),
        podIPs: arrayOf('Its addresses.', obj('An address.', { ip: str('The address.') }), { mergeKey: 'ip' }),
        startTime: time('When the kubelet accepted it.'),
        qosClass: str('Guaranteed, Burstable or BestEffort.'),
        nominatedNodeName: str('The node it is to preempt pods on.'),
        reason: str('Why it is in this phase.'),
        message: str('Details of its phase.'),
        containerStatuses: arrayOf('State of each container.', free('A container status.')),
      },
      undefined,
      { preserveUnknown: true },
    ),
  }),
  columns: [
    {
      name: 'Ready',
      type: 'string',
      description: 'Containers ready, of all of them.',
      cell: (o) => {
        const cs = statusOf<PodStatus>(o).containerStatuses ?? [];
        const total = (specOf<{ containers?: unknown[] }>(o).containers ?? []).length;
        return `${cs.filter((c) => c.ready).length}/${total}`;
      },
    },
    {
      name: 'Status',
      type: 'string',
      description: 'The phase of the pod, or why it is not running.',
      cell: (o) => statusOf<PodStatus>(o).reason || statusOf<PodStatus>(o).phase || '',
    },
    {
      name: 'Restarts',
      type: 'string',
      description: 'Restarts of its containers.',
      cell: (o) =>
        String((statusOf<PodStatus>(o).containerStatuses ?? []).reduce((n, c) => n + (c.restartCount ?? 0), 0)),
    },
    ageColumn,
    {
      name: 'IP',
      type: 'string',
      priority: 1,
      description: 'Its address.',
      cell: (o) => orNone(statusOf<PodStatus>(o).podIP),
    },
    {
      name: 'Node',
      type: 'string',
      priority: 1,
      description: 'The node it runs on.',
      cell: (o) => orNone(specOf<{ nodeName?: string }>(o).nodeName),
    },
    {
      name: 'Nominated Node',
      type: 'string',
      priority: 1,
      description: 'The node it is to preempt pods on.',
      cell: (o) => orNone(statusOf<PodStatus>(o).nominatedNodeName),
    },
    { name: 'Readiness Gates', type: 'string', priority: 1, description: 'Readiness gates.', cell: () => '<none>' },
  ],
  fields: {
    'spec.nodeName': (o) => specOf<{ nodeName?: string }>(o).nodeName ?? '',
    'spec.serviceAccountName': (o) => specOf<{ serviceAccountName?: string }>(o).serviceAccountName ?? '',
    'spec.restartPolicy': (o) => specOf<{ restartPolicy?: string }>(o).restartPolicy ?? '',
    'spec.schedulerName': (o) => specOf<{ schedulerName?: string }>(o).schedulerName ?? '',
    'spec.hostNetwork': (o) => String(!!specOf<{ hostNetwork?: boolean }>(o).hostNetwork),
    'status.phase': (o) => statusOf<PodStatus>(o).phase ?? '',
    'status.podIP': (o) => statusOf<PodStatus>(o).podIP ?? '',
    'status.nominatedNodeName': (o) => statusOf<PodStatus>(o).nominatedNodeName ?? '',
  },
});

interface EventFields {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
  involvedObject?: {
    kind?: string;
    name?: string;
    namespace?: string;
    uid?: string;
    fieldPath?: string;
    apiVersion?: string;
    resourceVersion?: string;
  };
  source?: { component?: string; host?: string };
  reportingComponent?: string;
}

const ev = (o: StoredObject): EventFields => o as EventFields;
const lastSeen = (o: StoredObject, now: number): string =>
  since(ev(o).lastTimestamp ?? ev(o).firstTimestamp ?? ev(o).eventTime, now);

export const EVENT = core({
  plural: 'events',
  kind: 'Event',
  namespaced: true,
  shortNames: ['ev'],
  schema: obj(
    'A report of something that happened to an object.',
    {
      involvedObject: ref(OBJECT_REFERENCE.ref!, 'The object it is about.'),
      reason: str('Why it happened, in one CamelCase word.'),
      message: str('What happened, for people.'),
      type: str('Normal or Warning.'),
      count: int('How many times it happened.'),
      firstTimestamp: time('When it first happened.'),
      lastTimestamp: time('When it last happened.'),
      eventTime: { type: 'string', format: 'date-time', description: 'When it happened, to the microsecond.' },
      source: obj('Who reported it.', { component: str('The component.'), host: str('The node.') }),
      reportingComponent: str('The controller that reported it.'),
      reportingInstance: str('Which instance of the controller.'),
      action: str('What the controller did.'),
    },
    ['involvedObject'],
  ),
  columns: [
    { name: 'Last Seen', type: 'string', description: 'When it last happened.', cell: lastSeen },
    { name: 'Type', type: 'string', description: 'Normal or Warning.', cell: (o) => ev(o).type ?? '' },
    { name: 'Reason', type: 'string', description: 'Why it happened.', cell: (o) => ev(o).reason ?? '' },
    {
      name: 'Object',
      type: 'string',
      description: 'The object it is about.',
      cell: (o) => {
        const i = ev(o).involvedObject ?? {};
        const kind = (i.kind ?? '').toLowerCase();
        return i.name ? `${kind}/${i.name}` : kind;
      },
    },
    {
      name: 'Subobject',
      type: 'string',
      priority: 1,
      description: 'The part of the object it is about.',
      cell: (o) => ev(o).involvedObject?.fieldPath ?? '',
    },
    {
      name: 'Source',
      type: 'string',
      priority: 1,
      description: 'Who reported it.',
      cell: (o) => [ev(o).source?.component, ev(o).source?.host].filter(Boolean).join(', '),
    },
    { name: 'Message', type: 'string', description: 'What happened.', cell: (o) => (ev(o).message ?? '').trim() },
    {
      name: 'First Seen',
      type: 'string',
      priority: 1,
      description: 'When it first happened.',
      cell: (o, now) => since(ev(o).firstTimestamp ?? ev(o).eventTime, now),
    },
    { name: 'Count', type: 'integer', priority: 1, description: 'How many times.', cell: (o) => ev(o).count ?? 1 },
    {
      name: 'Name',
      type: 'string',
      format: 'name',
      priority: 1,
      description: 'Name of the event.',
      cell: (o) => o.metadata.name,
    },
  ],
  fields: {
    'involvedObject.kind': (o) => ev(o).involvedObject?.kind ?? '',
    'involvedObject.namespace': (o) => ev(o).involvedObject?.namespace ?? '',
    'involvedObject.name': (o) => ev(o).involvedObject?.name ?? '',
    'involvedObject.uid': (o) => ev(o).involvedObject?.uid ?? '',
    'involvedObject.apiVersion': (o) => ev(o).involvedObject?.apiVersion ?? '',
    'involvedObject.resourceVersion': (o) => ev(o).involvedObject?.resourceVersion ?? '',
    'involvedObject.fieldPath': (o) => ev(o).involvedObject?.fieldPath ?? '',
    reason: (o) => ev(o).reason ?? '',
    reportingComponent: (o) => ev(o).reportingComponent ?? '',
    source: (o) => ev(o).source?.component ?? '',
    type: (o) => ev(o).type ?? '',
  },
});

export const CORE_KINDS = [NODE, NAMESPACE, CONFIG_MAP, SECRET, SERVICE_ACCOUNT, SERVICE, POD, EVENT];
