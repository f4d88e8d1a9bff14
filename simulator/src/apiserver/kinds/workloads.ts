// The workload kinds the mock cluster serves: Deployments and DaemonSets (apps/v1) and Jobs (batch/v1).
import { condition, LABEL_SELECTOR, POD_TEMPLATE } from './meta.js';
import { formatAge } from 'cincy/duration';
import { ageColumn, orNone, specOf, statusOf } from './printing.js';
import { bool, free, int, arrayOf, obj, ref, time } from './schema.js';
import type { StoredObject, PrinterColumn, ResourceKind } from './types.js';

interface Template {
  template?: { spec?: { containers?: Array<{ name: string; image?: string }>; nodeSelector?: Record<string, string> } };
  selector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
}

const containers = (o: StoredObject): Array<{ name: string; image?: string }> =>
  specOf<Template>(o).template?.spec?.containers ?? [];
const selectorText = (o: StoredObject): string =>
  orNone(
    Object.entries(specOf<Template>(o).selector?.matchLabels ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(','),
  );

/** The Containers, Images and Selector columns `-o wide` adds to workloads. */
const WIDE: PrinterColumn[] = [
  {
    name: 'Containers',
    type: 'string',
    priority: 1,
    description: 'Names of its containers.',
    cell: (o) =>
      containers(o)
        .map((c) => c.name)
        .join(','),
  },
  {
    name: 'Images',
    type: 'string',
    priority: 1,
    description: 'Images of its containers.',
    cell: (o) =>
      containers(o)
        .map((c) => c.image ?? '')
        .join(','),
  },
  { name: 'Selector', type: 'string', priority: 1, description: 'Labels of its pods.', cell: selectorText },
];

const count = (field: string) => (o: StoredObject) => (statusOf<Record<string, number>>(o)[field] ?? 0) as number;

export const DEPLOYMENT: ResourceKind = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  kind: 'Deployment',
  namespaced: true,
  shortNames: ['deploy'],
  status: true,
  generation: true,
  categories: ['all'],
  definition: 'io.k8s.api.apps.v1.Deployment',
  schema: obj('Pods kept running from a template, rolled to a new template gradually.', {
    spec: obj(
      'The pods wanted.',
      {
        replicas: int('How many pods.'),
        selector: ref(LABEL_SELECTOR.ref!, 'Labels of its pods.'),
        template: ref(POD_TEMPLATE.ref!, 'The pods it makes.'),
        strategy: free('How a new template replaces the old one.'),
        minReadySeconds: int('Seconds a new pod must be ready to count as available.'),
        revisionHistoryLimit: int('Old ReplicaSets kept.'),
        paused: bool('The rollout is paused.'),
        progressDeadlineSeconds: int('Seconds a rollout may take before it counts as stuck.'),
      },
      ['selector', 'template'],
    ),
    status: obj('Where the rollout stands.', {
      observedGeneration: int('The generation of the spec last acted on.', 'int64'),
      replicas: int('Pods it has.'),
      updatedReplicas: int('Pods of the current template.'),
      readyReplicas: int('Pods ready.'),
      availableReplicas: int('Pods available.'),
      unavailableReplicas: int('Pods not available.'),
      conditions: arrayOf(
        'Conditions of the deployment (Available, Progressing).',
        condition('A condition.', { lastUpdateTime: time('When it was last updated.') }),
        { mergeKey: 'type' },
      ),
    }),
  }),
  columns: [
    {
      name: 'Ready',
      type: 'string',
      description: 'Pods ready, of those wanted.',
      cell: (o) => `${count('readyReplicas')(o)}/${specOf<{ replicas?: number }>(o).replicas ?? 1}`,
    },
    {
      name: 'Up-to-date',
      type: 'integer',
      description: 'Pods of the current template.',
      cell: count('updatedReplicas'),
    },
    { name: 'Available', type: 'integer', description: 'Pods available.', cell: count('availableReplicas') },
    ageColumn,
    ...WIDE,
  ],
};

export const DAEMON_SET: ResourceKind = {
  group: 'apps',
  version: 'v1',
  plural: 'daemonsets',
  kind: 'DaemonSet',
  namespaced: true,
  shortNames: ['ds'],
  status: true,
  generation: true,
  categories: ['all'],
  definition: 'io.k8s.api.apps.v1.DaemonSet',
  schema: obj('A pod on every node that matches.', {
    spec: obj(
      'The pods wanted.',
      {
        selector: ref(LABEL_SELECTOR.ref!, 'Labels of its pods.'),
        template: ref(POD_TEMPLATE.ref!, 'The pods it makes.'),
        updateStrategy: free('How a new template replaces the old one.'),
        minReadySeconds: int('Seconds a new pod must be ready to count as available.'),
        revisionHistoryLimit: int('Old revisions kept.'),
      },
      ['selector', 'template'],
    ),
    status: obj('Where it stands.', {
      observedGeneration: int('The generation of the spec last acted on.', 'int64'),
      desiredNumberScheduled: int('Nodes that should run its pod.'),
      currentNumberScheduled: int('Nodes that run its pod.'),
      updatedNumberScheduled: int('Nodes that run its current pod.'),
      numberReady: int('Nodes whose pod is ready.'),
      numberAvailable: int('Nodes whose pod is available.'),
      numberUnavailable: int('Nodes whose pod is not available.'),
      numberMisscheduled: int('Nodes that run its pod but should not.'),
      conditions: arrayOf('Conditions.', condition('A condition.'), { mergeKey: 'type' }),
    }),
  }),
  columns: [
    {
      name: 'Desired',
      type: 'integer',
      description: 'Nodes that should run its pod.',
      cell: count('desiredNumberScheduled'),
    },
    { name: 'Current', type: 'integer', description: 'Nodes that run its pod.', cell: count('currentNumberScheduled') },
    { name: 'Ready', type: 'integer', description: 'Nodes whose pod is ready.', cell: count('numberReady') },
    {
      name: 'Up-to-date',
      type: 'integer',
      description: 'Nodes that run its current pod.',
      cell: count('updatedNumberScheduled'),
    },
    {
      name: 'Available',
      type: 'integer',
      description: 'Nodes whose pod is available.',
      cell: count('numberAvailable'),
    },
    {
      name: 'Node Selector',
      type: 'string',
      description: 'Labels of the nodes it runs on.',
      cell: (o) =>
        orNone(
          Object.entries(specOf<Template>(o).template?.spec?.nodeSelector ?? {})
            .map(([k, v]) => `${k}=${v}`)
            .join(','),
        ),
    },
    ageColumn,
    ...WIDE,
  ],
};

interface JobStatus {
  succeeded?: number;
  failed?: number;
  active?: number;
  startTime?: string;
  completionTime?: string;
  conditions?: Array<{ type: string; status: string }>;
}

function jobStatusCell(o: StoredObject): string {
  const conditions = statusOf<JobStatus>(o).conditions ?? [];
  const has = (type: string): boolean => conditions.some((c) => c.type === type && c.status === 'True');
  if (has('Failed')) return 'Failed';
  if (has('Complete')) return 'Complete';
  if (has('Suspended')) return 'Suspended';
  if (has('FailureTarget')) return 'FailureTarget';
  if (has('SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

export const JOB: ResourceKind = {
  group: 'batch',
  version: 'v1',
  plural: 'jobs',
  kind: 'Job',
  namespaced: true,
  status: true,
  generation: true,
  categories: ['all'],
  definition: 'io.k8s.api.batch.v1.Job',
  schema: obj('Pods run until enough of them succeed.', {
    spec: obj(
      'The pods and when the job is done.',
      {
        template: ref(POD_TEMPLATE.ref!, 'The pods it runs.'),
        completions: int('Successful pods needed.'),
        parallelism: int('Pods at most at once.'),
        backoffLimit: int('Failed pods allowed before the job fails.'),
        activeDeadlineSeconds: int('Seconds the job may run.', 'int64'),
        ttlSecondsAfterFinished: int('Seconds the finished job is kept.'),
        suspend: bool('No pods are started while set.'),
        selector: ref(LABEL_SELECTOR.ref!, 'Labels of its pods.'),
      },
      ['template'],
    ),
    status: obj('Where the job stands.', {
      startTime: time('When it started.'),
      completionTime: time('When it completed.'),
      active: int('Pods running.'),
      ready: int('Pods ready.'),
      succeeded: int('Pods that succeeded.'),
      failed: int('Pods that failed.'),
      conditions: arrayOf(
        'Conditions of the job (Complete, Failed, Suspended).',
        condition('A condition.', { lastProbeTime: time('When it was last checked.') }),
      ),
    }),
  }),
  columns: [
    { name: 'Status', type: 'string', description: 'Whether the job runs, completed or failed.', cell: jobStatusCell },
    {
      name: 'Completions',
      type: 'string',
      description: 'Pods that succeeded, of those needed.',
      cell: (o) => `${statusOf<JobStatus>(o).succeeded ?? 0}/${specOf<{ completions?: number }>(o).completions ?? 1}`,
    },
    {
      name: 'Duration',
      type: 'string',
      description: 'How long it ran.',
      cell: (o, now) => {
        const s = statusOf<JobStatus>(o);
        if (!s.startTime) return '';
        const end = s.completionTime ? Date.parse(s.completionTime) : now;
        return formatAge(end - Date.parse(s.startTime));
      },
    },
    ageColumn,
    ...WIDE,
  ],
};

export const WORKLOAD_KINDS = [DEPLOYMENT, DAEMON_SET, JOB];
