// The simulated controllers on another API server (`cincy mock-cluster --kubeconfig FILE`): a ClusterState
// kept in step with that server, as an informer's cache is. Each kind the controllers read is listed and
// watched there, and what the server holds is adopted into the state; what the controllers change in the
// state is written back through the server's API — created, replaced, its status replaced, deleted — and
// the server's answer adopted in turn, so a field the server prunes is pruned here too. A write the server
// refuses (a conflict, a kind not served yet) stays to do, and is tried again at the next flush.
import { setMaxListeners } from 'node:events';
import pLimit from 'p-limit';
import { canonicalJson } from 'cincy/canonicalJson';
import type { ClusterApi, KubeObject as ApiObject, Resource } from 'cincy/cluster/api';
import { apiMessage, isConflict, isNotFound } from 'cincy/cluster/apiError';
import { KINDS, stored, type StoredObject, type ResourceKind } from '../apiserver/kinds.js';
import type { ClusterState } from '../apiserver/state.js';

/** The metadata the server sets, which a write never sends and a comparison never looks at. */
const SERVER_FIELDS = ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'managedFields', 'selfLink'];

/** Kinds written first: a custom resource needs its CRD, an object its namespace. */
const FIRST = ['CustomResourceDefinition', 'Namespace', 'ServiceAccount'];

/** How many writes the mirror has in flight at once. */
const WRITES_IN_FLIGHT = 8;

/** An object the controllers changed, to be written. */
type Dirty = { kind: ResourceKind; namespace?: string; name: string };

const keyOf = (kind: ResourceKind, namespace: string | undefined, name: string): string =>
  `${kind.kind}/${namespace ?? ''}/${name}`;
const resourceOf = (k: ResourceKind): Resource => ({
  group: k.group,
  version: k.version,
  resource: k.plural,
  namespaced: k.namespaced,
});

/** An object without what the server sets: what a write sends, and what two versions are compared by. */
function withoutServerFields(o: ApiObject | StoredObject): StoredObject {
  const copy = structuredClone(o) as StoredObject;
  for (const f of SERVER_FIELDS) delete copy.metadata[f];
  return copy;
}
const mainPart = (o: ApiObject | StoredObject): string =>
  canonicalJson({ ...withoutServerFields(o), status: undefined });
const statusPart = (o: ApiObject | StoredObject): string => canonicalJson(o.status ?? null);

export interface MirrorOptions {
  /** Told of each write the server refused for a reason other than a conflict (once while it lasts). */
  warn(message: string): void;
}

export class RemoteMirror {
  /** The server's last version of each object this mirror knows of, by kind/namespace/name. */
  private readonly remote = new Map<string, ApiObject>();
  /** Objects the controllers changed since the last flush. */
  private readonly dirty = new Map<string, Dirty>();
  private readonly said = new Set<string>();
  private adopting = false;
  private kinds: ResourceKind[] = [];
  private readonly stopped = new AbortController();

  constructor(
    private readonly state: ClusterState,
    private readonly api: ClusterApi,
    private readonly o: MirrorOptions,
  ) {
    // One watch a kind listens for the stop: more than Node's default of ten listeners, and none of them leaks.
    setMaxListeners(0, this.stopped.signal);
    state.onChange((kind, e) => {
      if (this.adopting || !this.kinds.includes(kind)) return;
      const { namespace, name } = e.object.metadata;
      this.dirty.set(keyOf(kind, namespace, name), { kind, namespace, name });
    });
  }

  /** The kinds of the simulation the server serves: those kept in step. */
  async discover(): Promise<ResourceKind[]> {
    const served = await Promise.all(
      KINDS.filter(stored).map(async (k) => {
        const apiVersion = k.group ? `${k.group}/${k.version}` : k.version;
        const found = await this.api.resourceFor(apiVersion, k.kind).catch((err: unknown) => {
          if (isNotFound(err)) return undefined;
          throw err;
        });
        return found && k;
      }),
    );
    this.kinds = served.filter((k): k is ResourceKind => k !== undefined);
    return this.kinds;
  }

  /** Whether the server holds an object of `kind`. */
  async holds(kind: ResourceKind, namespace: string | undefined, name: string): Promise<boolean> {
    return this.api.get(resourceOf(kind), { namespace, name }).then(
      () => true,
      (err: unknown) => (isNotFound(err) ? false : Promise.reject(err)),
    );
  }

  /** Marks every object of the state to be written (a new cluster seeded here, to be made there). */
  markAll(): void {
    for (const kind of this.kinds)
      for (const o of this.state.list(kind))
        this.dirty.set(keyOf(kind, o.metadata.namespace, o.metadata.name), {
          kind,
          namespace: o.metadata.namespace,
          name: o.metadata.name,
        });
  }

  /** Lists every kind kept in step and adopts what the server holds; then watches each, until stop(). */
  async start(): Promise<void> {
    await Promise.all(
      this.kinds.map(async (kind) => {
        const rv = await this.relist(kind);
        void this.watch(kind, rv);
      }),
    );
  }

  stop(): void {
    this.stopped.abort();
  }

  /** How many changes are still to be written. */
  get pending(): number {
    return this.dirty.size;
  }

  /**
   * Writes what the controllers changed; what the server refuses stays to do. The kinds of FIRST go in their
   * order, each before the next; the objects of one step are written side by side (WRITES_IN_FLIGHT at once),
   * as a cluster's many controllers write theirs.
   */
  async flush(): Promise<void> {
    const rank = (k: ResourceKind): number => (FIRST.includes(k.kind) ? FIRST.indexOf(k.kind) : FIRST.length);
    const todo = [...this.dirty.entries()];
    const limit = pLimit(WRITES_IN_FLIGHT);
    for (let step = 0; step <= FIRST.length; step++)
      await Promise.all(
        todo.filter(([, d]) => rank(d.kind) === step).map(([key, d]) => limit(() => this.write(key, d))),
      );
  }

  /** One object written, or kept to do when refused (said once while it lasts; a conflict reads it again). */
  private async write(key: string, { kind, namespace, name }: Dirty): Promise<void> {
    this.dirty.delete(key);
    try {
      await this.push(key, kind, namespace, name);
      this.said.delete(key);
    } catch (err) {
      this.dirty.set(key, { kind, namespace, name });
      if (isConflict(err)) await this.refresh(key, kind, namespace, name);
      else if (!this.said.has(key)) {
        this.said.add(key);
        this.o.warn(`${kind.kind} ${namespace ? `${namespace}/` : ''}${name}: ${apiMessage(err)}`);
      }
    }
  }

  /**
   * Brings one object to the server as the state holds it: created (its status written next, as the server
   * drops a status on a create), or replaced where it differs, its status then. Each answer is adopted.
   */
  private async push(key: string, kind: ResourceKind, namespace: string | undefined, name: string): Promise<void> {
    const r = resourceOf(kind);
    const local = this.state.find(kind, namespace, name);
    let known = this.remote.get(key);
    if (!local) {
      if (known) await this.api.delete(r, { namespace, name }).catch((err: unknown) => ignoreNotFound(err));
      this.remote.delete(key);
      return;
    }
    if (!known) {
      const body = withoutServerFields(local);
      if (kind.status) delete body.status;
      try {
        known = await this.api.create(r, body as ApiObject);
      } catch (err) {
        if (!isConflict(err)) throw err;
        // The server had it already (a real CRD, a namespace it makes, an earlier run): its version stands.
        this.remember(kind, await this.api.get<ApiObject>(r, { namespace, name }));
        return;
      }
    } else if (mainPart(local) !== mainPart(known)) {
      const body = { ...withoutServerFields(local), status: undefined };
      body.metadata.resourceVersion = known.metadata.resourceVersion;
      known = await this.api.replace(r, body as ApiObject);
    }
    if (kind.status && local.status !== undefined && statusPart(local) !== statusPart(known))
      known = await this.api.replaceStatus(r, { ...known, status: local.status });
    this.remember(kind, known);
  }

  /** Takes the server's object as the one known, and as the state's copy. */
  private remember(kind: ResourceKind, o: ApiObject): void {
    const key = keyOf(kind, o.metadata.namespace, o.metadata.name);
    this.remote.set(key, o);
    this.adoptLocally(kind, o);
  }

  private adoptLocally(kind: ResourceKind, o: ApiObject): void {
    const copy = structuredClone(o) as StoredObject;
    delete copy.metadata.managedFields;
    copy.apiVersion ??= kind.group ? `${kind.group}/${kind.version}` : kind.version;
    copy.kind ??= kind.kind;
    this.adopting = true;
    try {
      this.state.adopt(kind, copy);
    } finally {
      this.adopting = false;
    }
  }

  /** After a conflict: the server's version, read again, replaces the state's copy (the controllers redo their change). */
  private async refresh(key: string, kind: ResourceKind, namespace: string | undefined, name: string): Promise<void> {
    const o = await this.api.get<ApiObject>(resourceOf(kind), { namespace, name }).catch(() => undefined);
    if (o) this.remember(kind, o);
    this.dirty.delete(key);
  }

  /** Lists a kind and adopts it whole (what the server no longer holds is forgotten); its resourceVersion. */
  private async relist(kind: ResourceKind): Promise<string | undefined> {
    const list = await this.api.list<ApiObject>(resourceOf(kind));
    const held = new Set<string>();
    for (const o of list.items) {
      held.add(keyOf(kind, o.metadata.namespace, o.metadata.name));
      if (!this.dirty.has(keyOf(kind, o.metadata.namespace, o.metadata.name))) this.remember(kind, o);
    }
    for (const o of this.state.list(kind)) {
      const key = keyOf(kind, o.metadata.namespace, o.metadata.name);
      if (!held.has(key) && this.remote.has(key)) this.forgetLocally(key, kind, o.metadata.namespace, o.metadata.name);
    }
    return list.metadata.resourceVersion;
  }

  private forgetLocally(key: string, kind: ResourceKind, namespace: string | undefined, name: string): void {
    this.remote.delete(key);
    this.adopting = true;
    try {
      this.state.forget(kind, namespace, name);
    } finally {
      this.adopting = false;
    }
  }

  /** Follows a kind's changes on the server; a watch that ends is started again, from a new list when it expired. */
  private async watch(kind: ResourceKind, from: string | undefined): Promise<void> {
    let rv = from;
    const { signal } = this.stopped;
    while (!signal.aborted) {
      let expired = false;
      try {
        await this.api.watch<ApiObject>(
          resourceOf(kind),
          { resourceVersion: rv },
          (e) => {
            if (e.type === 'ERROR') {
              expired = (e.object as { code?: number }).code === 410;
              return;
            }
            rv = e.object.metadata.resourceVersion ?? rv;
            if (e.type === 'BOOKMARK') return;
            const { namespace, name } = e.object.metadata;
            const key = keyOf(kind, namespace, name);
            if (this.dirty.has(key)) return; // the controllers' change goes out first, over this one
            if (e.type === 'DELETED') this.forgetLocally(key, kind, namespace, name);
            else this.remember(kind, e.object);
          },
          signal,
        );
      } catch {
        expired = true; // the watch could not start: list again before the next
      }
      if (signal.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (expired) rv = await this.relist(kind).catch(() => rv);
    }
  }
}

function ignoreNotFound(err: unknown): void {
  if (!isNotFound(err)) throw err;
}
