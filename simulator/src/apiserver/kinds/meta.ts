// The definitions every kind shares: object metadata, label selectors, references, conditions, and the
// pod template workloads and Jobs carry.
import { bool, define, free, int, arrayOf, map, obj, ref, str, time, type Schema } from './schema.js';

export const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

define(
  'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference',
  obj(
    'An object that owns this one: when it is deleted, so is this one.',
    {
      apiVersion: str('API version of the owner.'),
      kind: str('Kind of the owner.'),
      name: str('Name of the owner.'),
      uid: str('UID of the owner.'),
      controller: bool('Whether the owner is the managing controller.'),
      blockOwnerDeletion: bool('Whether the owner cannot be deleted before this object is.'),
    },
    ['apiVersion', 'kind', 'name', 'uid'],
  ),
);

define(
  'io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry',
  obj('The fields a manager set, and how.', {
    apiVersion: str('Version of the fields.'),
    fieldsType: str('Format of fieldsV1.'),
    fieldsV1: free('The fields, as a set.'),
    manager: str('Who set them.'),
    operation: str('Apply or Update.'),
    subresource: str('The subresource written, if any.'),
    time: time('When they were last set.'),
  }),
);

define(
  OBJECT_META,
  obj('Metadata every persisted object has.', {
    name: str('Name of the object, unique in its namespace (or the cluster); cannot be changed.'),
    generateName: str('A prefix the server completes into a unique name when no name is given.'),
    namespace: str('The namespace of a namespaced object; empty for one that is not.'),
    uid: str('Unique identifier the server gives the object at creation.'),
    resourceVersion: str('Opaque version of the object, for optimistic concurrency and watches.'),
    generation: int('Sequence number of the desired state, moved by the server on a change of it.', 'int64'),
    creationTimestamp: time('When the server created the object.'),
    deletionTimestamp: time('When the object is to be deleted (it waits for its finalizers).'),
    deletionGracePeriodSeconds: int('Seconds allowed for a graceful deletion.', 'int64'),
    labels: map('Key-value pairs that select and group objects.'),
    annotations: map('Key-value pairs tools store on the object; not used for selection.'),
    ownerReferences: arrayOf(
      'The objects this one depends on.',
      ref('io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference', ''),
      {
        mergeKey: 'uid',
      },
    ),
    finalizers: arrayOf('What must happen before the object is deleted.', { type: 'string' }, { mergeSet: true }),
    managedFields: arrayOf(
      'Which manager set which fields.',
      ref('io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry', ''),
    ),
  }),
);

export const LABEL_SELECTOR = define(
  'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector',
  obj('Selects objects by their labels: every requirement must hold.', {
    matchLabels: map('Labels an object must have, with these values.'),
    matchExpressions: arrayOf(
      'Requirements on labels.',
      obj(
        'A label, an operator (In, NotIn, Exists, DoesNotExist) and values.',
        {
          key: str('The label key.'),
          operator: str('In, NotIn, Exists or DoesNotExist.'),
          values: arrayOf('Values for In and NotIn.', { type: 'string' }),
        },
        ['key', 'operator'],
      ),
    ),
  }),
);

export const OBJECT_REFERENCE = define(
  'io.k8s.api.core.v1.ObjectReference',
  obj('A reference to an object.', {
    apiVersion: str('API version of the referent.'),
    kind: str('Kind of the referent.'),
    name: str('Name of the referent.'),
    namespace: str('Namespace of the referent.'),
    uid: str('UID of the referent.'),
    resourceVersion: str('The resourceVersion the reference was made at.'),
    fieldPath: str('A part of the referent, such as a container.'),
  }),
);

/** A condition in the shape metav1.Condition has (the workloads' conditions have their own). */
export const condition = (description: string, extra: Record<string, Schema> = {}): Schema =>
  obj(
    description,
    {
      type: str('Type of the condition.'),
      status: str('True, False or Unknown.'),
      lastTransitionTime: time('When the status last changed.'),
      reason: str('Why, in one CamelCase word.'),
      message: str('Details for people.'),
      ...extra,
    },
    ['type', 'status'],
  );

const CONTAINER = obj(
  'A container of a pod.',
  {
    name: str('Name of the container, unique in the pod.'),
    image: str('Image it runs.'),
    command: arrayOf('Entrypoint.', { type: 'string' }),
    args: arrayOf('Arguments to the entrypoint.', { type: 'string' }),
    env: arrayOf(
      'Environment variables.',
      obj(
        'An environment variable.',
        { name: str('Its name.'), value: str('Its value.'), valueFrom: free('Where its value comes from.') },
        ['name'],
      ),
      { mergeKey: 'name' },
    ),
    ports: arrayOf(
      'Ports it listens on.',
      obj(
        'A port.',
        {
          name: str('Name of the port.'),
          containerPort: int('Port number.'),
          protocol: str('TCP, UDP or SCTP.'),
          hostPort: int('Port on the host.'),
        },
        ['containerPort'],
      ),
      { mergeKey: 'containerPort' },
    ),
    volumeMounts: arrayOf(
      'Volumes mounted into it.',
      obj('A volume mount.', { name: str('Volume name.'), mountPath: str('Where.'), readOnly: bool('Read-only.') }, [
        'name',
        'mountPath',
      ]),
      { mergeKey: 'mountPath' },
    ),
    resources: free('Compute resources it requests and is limited to.'),
  },
  ['name'],
  { preserveUnknown: true },
);

const POD_SPEC = define(
  'io.k8s.api.core.v1.PodSpec',
  obj(
    'What a pod runs and where.',
    {
      containers: arrayOf('Its containers.', CONTAINER, { mergeKey: 'name' }),
      initContainers: arrayOf('Containers run to completion before the others start.', CONTAINER, { mergeKey: 'name' }),
      nodeName: str('The node it is bound to.'),
      nodeSelector: map('Labels a node must have to run it.'),
      serviceAccountName: str('The service account it runs as.'),
      restartPolicy: str('Always, OnFailure or Never.'),
      priorityClassName: str('Its priority class.'),
      hostNetwork: bool("It uses the node's network."),
      tolerations: arrayOf('Taints it tolerates.', free('A toleration.')),
      volumes: arrayOf('Volumes its containers can mount.', free('A volume.'), { mergeKey: 'name' }),
    },
    undefined,
    { preserveUnknown: true },
  ),
);

export const POD_TEMPLATE = define(
  'io.k8s.api.core.v1.PodTemplateSpec',
  obj('The pods a workload makes.', {
    metadata: ref(OBJECT_META, 'Metadata of the pods.'),
    spec: ref('io.k8s.api.core.v1.PodSpec', 'What the pods run.'),
  }),
);

export { POD_SPEC };
