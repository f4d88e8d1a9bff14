// The ClusterApi of a simulated cluster held in this process: every verb goes to the ClusterState with the
// API server's rules — the resource must be served, a create needs its namespace and loses its status, a
// resourceVersion that is not the stored one is a 409 — without HTTP in between, so the fast tests run the
// agent on it in milliseconds. Each call is also described as the HTTP request it stands for (method and
// path), so a test can fail or watch calls as it would on the wire.
import {
  apiVersionOf as apiVersionOfResource,
  collectionPath,
  objectPath,
  type ClusterApi,
  type KubeObject as ApiObject,
  type ListOptions,
  type ObjectKey,
  type ObjectList,
  type Patch,
  type Resource,
  type WatchEvent,
  type WatchOptions,
  type WritableObject,
} from 'cincy/cluster/api';
import { servedKinds } from './crds.js';
import { parseFieldSelector } from './fieldSelector.js';
import { apiVersionOf, type StoredObject, type ResourceKind } from './kinds.js';
import { KubeError } from './kubeError.js';
import { parseLabelSelector } from './labelSelector.js';
import type { ClusterState } from './state.js';

/** A call as the HTTP request it stands for. */
export interface ApiCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
}

export interface InMemoryApiOptions {
  /** Whose fields a server-side apply sets. */
  fieldManager: string;
  /** Told of every call before it is served; what it throws (a ClusterApiError, say) is the call's answer. */
  intercept?: (call: ApiCall) => void;
  /** Told when a call starts and when it has ended, to know whether a call is under way. */
  track?: (delta: 1 | -1) => void;
  /** The cluster's time (serverTime); the state's own clock unless given. */
  now?: () => number;
}

export class InMemoryClusterApi implements ClusterApi {
  constructor(
    private readonly state: ClusterState,
    private readonly o: InMemoryApiOptions,
  ) {}

  /** The options of its writes: they are made as its field manager. */
  private get manager(): { fieldManager: string } {
    return { fieldManager: this.o.fieldManager };
  }

  get<T = ApiObject>(r: Resource, key: ObjectKey): Promise<T> {
    return this.serve({ method: 'GET', path: objectPath(r, key) }, () => {
      return this.state.get(this.kindOf(r), key.namespace, key.name) as T;
    });
  }

  list<T = ApiObject>(r: Resource, o: ListOptions = {}): Promise<ObjectList<T>> {
    return this.serve({ method: 'GET', path: collectionPath(r, o.namespace) }, () => {
      const kind = this.kindOf(r);
      const items = this.state.list(
        kind,
        o.namespace,
        parseLabelSelector(o.labelSelector),
        parseFieldSelector(o.fieldSelector, kind),
      );
      return { items: items as T[], metadata: { resourceVersion: this.state.resourceVersion } };
    });
  }

  create<T extends WritableObject>(r: Resource, body: T): Promise<T> {
    const namespace = body.metadata.namespace;
    return this.serve({ method: 'POST', path: collectionPath(r, namespace) }, () => {
      const kind = this.kindOf(r);
      this.admit(kind, namespace);
      const object = structuredClone(body) as unknown as StoredObject;
      // As the API server does, a kind with a status subresource starts with no status: only its controller writes it.
      if (kind.status && kind.plural !== 'namespaces') delete object.status;
      return this.state.create(kind, namespace, object, undefined, this.manager) as unknown as T;
    });
  }

  replace<T extends WritableObject>(r: Resource, body: T): Promise<T> {
    return this.write('PUT', r, body, undefined);
  }

  replaceStatus<T extends WritableObject>(r: Resource, body: T): Promise<T> {
    return this.write('PUT', r, body, 'status');
  }

  patch<T = ApiObject>(r: Resource, key: ObjectKey, patch: Patch): Promise<T> {
    return this.serve({ method: 'PATCH', path: objectPath(r, key) }, () => {
      const kind = this.kindOf(r);
      if (patch.type === 'apply') {
        this.admit(kind, key.namespace);
        return this.state.apply(kind, key.namespace, key.name, patch.body, this.o.fieldManager).object as T;
      }
      return this.state.patch(kind, key.namespace, key.name, patch.body, undefined, this.manager, patch.type) as T;
    });
  }

  async delete(r: Resource, key: ObjectKey): Promise<void> {
    await this.serve({ method: 'DELETE', path: objectPath(r, key) }, () => {
      this.state.delete(this.kindOf(r), key.namespace, key.name);
    });
  }

  async watch<T = ApiObject>(
    r: Resource,
    o: WatchOptions,
    onEvent: (e: WatchEvent<T>) => void,
    signal: AbortSignal,
  ): Promise<void> {
    if (signal.aborted) return;
    const stop = await this.serve({ method: 'GET', path: `${collectionPath(r, o.namespace)}?watch=1` }, () => {
      const kind = this.kindOf(r);
      return this.state.watch(
        {
          kind,
          namespace: o.namespace,
          name: undefined,
          selector: parseLabelSelector(o.labelSelector),
          fields: parseFieldSelector(o.fieldSelector, kind),
          // Told after the write that caused it has returned, as a watch event arrives after the write's answer.
          send: (e) => queueMicrotask(() => signal.aborted || onEvent(e as unknown as WatchEvent<T>)),
        },
        o.resourceVersion,
      );
    });
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    stop();
  }

  resourceFor(apiVersion: string, kind: string): Promise<Resource> {
    return this.serve({ method: 'GET', path: apiVersion.includes('/') ? `/apis/${apiVersion}` : '/api/v1' }, () => {
      const k = servedKinds(this.state).find((x) => apiVersionOf(x) === apiVersion && x.kind === kind);
      if (!k)
        throw new KubeError(404, 'NotFound', `the server does not serve kind "${kind}" in version "${apiVersion}"`);
      return { group: k.group, version: k.version, resource: k.plural, namespaced: k.namespaced };
    });
  }

  serverTime(): Promise<number> {
    return this.serve({ method: 'GET', path: '/version' }, () => (this.o.now ?? this.state.now)());
  }

  private write<T extends WritableObject>(
    method: 'PUT',
    r: Resource,
    body: T,
    subresource: 'status' | undefined,
  ): Promise<T> {
    const { name = '', namespace } = body.metadata;
    const path = `${objectPath(r, { name, namespace })}${subresource ? '/status' : ''}`;
    return this.serve({ method, path }, () => {
      const kind = this.kindOf(r);
      return this.state.update(kind, namespace, name, structuredClone(body), subresource, this.manager) as unknown as T;
    });
  }

  /** Nothing is created in a namespace that does not exist, as the API server's NamespaceLifecycle admission sees to. */
  private admit(kind: ResourceKind, namespace: string | undefined): void {
    if (kind.namespaced && namespace !== undefined && !this.state.hasNamespace(namespace))
      throw new KubeError(404, 'NotFound', `namespaces "${namespace}" not found`, {
        name: namespace,
        kind: 'namespaces',
      });
  }

  /** The served kind of a resource; 404 as for a path the server does not serve. */
  private kindOf(r: Resource): ResourceKind {
    const k = servedKinds(this.state).find(
      (x) => x.group === r.group && x.version === r.version && x.plural === r.resource,
    );
    if (!k)
      throw new KubeError(
        404,
        'NotFound',
        `the server could not find the requested resource (${r.resource}.${apiVersionOfResource(r)})`,
      );
    return k;
  }

  /** Serves a call on a later turn of the event loop, as an answer over the wire arrives; writes are durable first. */
  private async serve<T>(call: ApiCall, answer: () => T): Promise<T> {
    this.o.track?.(1);
    try {
      await new Promise((resolve) => setImmediate(resolve));
      this.o.intercept?.(call);
      const result = answer();
      if (call.method !== 'GET') await this.state.durable();
      return result;
    } finally {
      this.o.track?.(-1);
    }
  }
}
