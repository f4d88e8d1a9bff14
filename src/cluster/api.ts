// The one way the agent and the command line reach a cluster: the Kubernetes API's verbs on a resource
// named by group, version and plural name. Two implementations stand behind it: HttpClusterApi (http.ts)
// for a real API server, and the simulator's in-memory API server for the fast tests. Objects travel as
// plain JSON, untouched: nothing drops fields a client library does not model.

/** A kind of object the API serves: `/apis/<group>/<version>/[namespaces/<ns>/]<resource>` (group '' is the core `/api/v1`). */
export interface Resource {
  group: string;
  version: string;
  /** The plural, lower-case name in the URL: `clusterversions`. */
  resource: string;
  namespaced: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [key: string]: unknown;
}

/** An object as the API stores it: whatever it holds besides its metadata is the caller's to read. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

/** What a write needs of an object: where it goes, and the version it was read at (for a replace). */
export interface WritableObject {
  metadata: { name?: string; namespace?: string; resourceVersion?: string };
}

/** Where an object is: its name, and its namespace when its resource is namespaced. */
export interface ObjectKey {
  name: string;
  namespace?: string;
}

export interface ObjectList<T> {
  items: T[];
  metadata: { resourceVersion?: string };
}

export interface ListOptions {
  /** Only this namespace's objects (a namespaced resource); all namespaces without it. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export interface WatchOptions extends ListOptions {
  /** Events after this version; without it, the objects there are now come first as ADDED. */
  resourceVersion?: string;
}

export interface WatchEvent<T = KubeObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  /** The object; for ERROR, a Status. */
  object: T;
}

/** A patch, by its content type: RFC 7386 merge, RFC 6902 JSON, or server-side apply. */
export type Patch =
  | { type: 'merge'; body: object }
  | { type: 'json'; body: unknown[] }
  | { type: 'apply'; body: object; force?: boolean };

/** The Kubernetes API of one cluster, as one identity (its field manager) sees it. */
export interface ClusterApi {
  /** The object; a ClusterApiError 404 when there is none. */
  get<T = KubeObject>(r: Resource, key: ObjectKey): Promise<T>;
  list<T = KubeObject>(r: Resource, o?: ListOptions): Promise<ObjectList<T>>;
  /** Creates `body` in `body.metadata.namespace`. */
  create<T extends WritableObject>(r: Resource, body: T): Promise<T>;
  /** Replaces the object (not its status); a resourceVersion in `body` that is not the stored one is a 409. */
  replace<T extends WritableObject>(r: Resource, body: T): Promise<T>;
  /** Replaces only the status, through the status subresource. */
  replaceStatus<T extends WritableObject>(r: Resource, body: T): Promise<T>;
  patch<T = KubeObject>(r: Resource, key: ObjectKey, patch: Patch): Promise<T>;
  delete(r: Resource, key: ObjectKey): Promise<void>;
  /**
   * Streams events to `onEvent` until the server ends the watch (the promise resolves) or `signal` aborts;
   * a watch that cannot start rejects.
   */
  watch<T = KubeObject>(
    r: Resource,
    o: WatchOptions,
    onEvent: (e: WatchEvent<T>) => void,
    signal: AbortSignal,
  ): Promise<void>;
  /** The resource that serves `kind` of `apiVersion` (discovery); a ClusterApiError 404 when none does. */
  resourceFor(apiVersion: string, kind: string): Promise<Resource>;
  /**
   * The time on the API server's clock (milliseconds), which the times the cluster writes are in: ages are
   * reckoned against it rather than against a client's clock, which may be off.
   */
  serverTime(): Promise<number>;
}

/** What a Status says about the object concerned and, for a 422, each field's cause. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: Array<{ reason?: string; message?: string; field?: string }>;
  [key: string]: unknown;
}

/** A call the API server answered with an error status: its HTTP status, and the Status object's reason and message. */
export class ClusterApiError extends Error {
  override readonly name = 'ClusterApiError';

  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  /** The error as the Status object the API server answers with. */
  toStatus(): object {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details && { details: this.details }),
      code: this.status,
    };
  }
}

/** `group/version`, or `version` for the core group: an object's apiVersion. */
export const apiVersionOf = (r: Pick<Resource, 'group' | 'version'>): string =>
  r.group ? `${r.group}/${r.version}` : r.version;

/** The URL path of a resource's collection, in `namespace` when given. */
export function collectionPath(r: Resource, namespace?: string): string {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  return r.namespaced && namespace
    ? `${base}/namespaces/${encodeURIComponent(namespace)}/${r.resource}`
    : `${base}/${r.resource}`;
}

/** The URL path of one object. */
export const objectPath = (r: Resource, key: ObjectKey): string =>
  `${collectionPath(r, key.namespace)}/${encodeURIComponent(key.name)}`;
