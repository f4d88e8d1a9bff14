// The state of the mock cluster: Kubernetes objects of a few kinds with the API server's semantics
// that clients rely on — resourceVersion (409 on a stale one), generation, the status subresource,
// merge patches, label selectors and watch events — persisted to a file, at most once per
// `persistEveryMs` (a write of ~1000 objects costs ~4 ms, and an update makes thousands of writes).
import { canonicalJson } from '../../canonicalJson.js';
import { kubeTime } from '../../clock.js';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { apiVersionOf, kindFor, type KubeObject, type ResourceKind } from './kinds.js';
import { KubeError } from './kubeError.js';
import { matchAll, type LabelSelector } from './labelSelector.js';

export type WatchEvent = { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KubeObject };
interface Watcher {
  kind: ResourceKind;
  namespace: string | undefined;
  selector: LabelSelector;
  name: string | undefined;
  send(event: WatchEvent): void;
}

const HISTORY = 1000;

export class ClusterState {
  private objects = new Map<string, KubeObject>();
  private revision = 0;
  private readonly history: Array<{ rv: number; kind: ResourceKind; event: WatchEvent }> = [];
  private readonly watchers = new Set<Watcher>();
  private dirty = false;
  private lastPersist = 0;
  private persistTimer: ReturnType<typeof setTimeout> | undefined;
  /** The time creationTimestamp records: the mock sets its simulated clock here. */
  now: () => number = Date.now;

  constructor(
    private readonly file?: string,
    private readonly persistEveryMs = 100,
  ) {
    if (file && existsSync(file)) {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as { revision: number; objects: KubeObject[] };
      this.revision = saved.revision;
      for (const o of saved.objects) this.objects.set(keyOf(kindFor(o), o.metadata.namespace, o.metadata.name), o);
    }
  }

  /** True when nothing was loaded: the caller seeds the inventory. */
  get empty(): boolean {
    return this.objects.size === 0;
  }

  get resourceVersion(): string {
    return String(this.revision);
  }

  /** An object; a 404 KubeError when there is none. */
  get(kind: ResourceKind, namespace: string | undefined, name: string): KubeObject {
    const o = this.find(kind, namespace, name);
    if (!o)
      throw new KubeError(404, 'NotFound', `${kind.plural}${kind.group ? `.${kind.group}` : ''} "${name}" not found`);
    return o;
  }

  /** An object, or undefined when there is none. */
  find(kind: ResourceKind, namespace: string | undefined, name: string): KubeObject | undefined {
    const o = this.objects.get(keyOf(kind, namespace, name));
    return o && clone(o);
  }

  list(kind: ResourceKind, namespace?: string, selector: LabelSelector = matchAll): KubeObject[] {
    return [...this.objects.values()]
      .filter(
        (o) =>
          o.kind === kind.kind &&
          (namespace === undefined || o.metadata.namespace === namespace) &&
          selector(o.metadata.labels ?? {}),
      )
      .sort((a, b) =>
        `${a.metadata.namespace ?? ''}/${a.metadata.name}`.localeCompare(
          `${b.metadata.namespace ?? ''}/${b.metadata.name}`,
        ),
      )
      .map(clone);
  }

  /** `createdAt` (ms) backdates creationTimestamp, for the inventory of a cluster installed in the past. */
  create(kind: ResourceKind, namespace: string | undefined, body: KubeObject, createdAt = this.now()): KubeObject {
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw new KubeError(400, 'BadRequest', 'the body must be an object');
    const name = body.metadata?.name;
    if (!name) throw new KubeError(422, 'Invalid', 'metadata.name: Required value');
    if (this.objects.has(keyOf(kind, namespace, name)))
      throw new KubeError(409, 'AlreadyExists', `${kind.plural} "${name}" already exists`);
    const o: KubeObject = {
      ...clone(body),
      apiVersion: apiVersionOf(kind),
      kind: kind.kind,
      metadata: {
        ...clone(body.metadata),
        name,
        ...(kind.namespaced && { namespace }),
        uid: randomUUID(),
        generation: 1,
        creationTimestamp: kubeTime(createdAt),
      },
    };
    return this.put(kind, o, 'ADDED');
  }

  /**
   * Replaces an object. `status` replaces only the status (the status subresource); otherwise the
   * stored status is kept and a spec change bumps metadata.generation. A resourceVersion in the body
   * that is not the stored one is a conflict.
   */
  update(
    kind: ResourceKind,
    namespace: string | undefined,
    name: string,
    body: KubeObject,
    subresource?: 'status',
  ): KubeObject {
    const current = this.get(kind, namespace, name);
    if (
      !body ||
      typeof body !== 'object' ||
      Array.isArray(body) ||
      (body.metadata !== undefined && (typeof body.metadata !== 'object' || body.metadata === null))
    ) {
      throw new KubeError(400, 'BadRequest', 'the body must be an object with an object metadata');
    }
    const rv = body.metadata?.resourceVersion;
    if (rv !== undefined && rv !== '' && rv !== current.metadata.resourceVersion) {
      throw new KubeError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${kind.plural} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
    }
    let next: KubeObject;
    if (subresource === 'status') {
      next = { ...current, status: clone(body.status) };
    } else {
      next = { ...clone(body), apiVersion: current.apiVersion, kind: current.kind, status: current.status };
      next.metadata = {
        ...clone(body.metadata),
        name,
        ...(kind.namespaced && { namespace }),
        uid: current.metadata.uid,
        creationTimestamp: current.metadata.creationTimestamp,
        generation: current.metadata.generation,
      };
      if (
        JSON.stringify(stripMeta(next)) !== JSON.stringify(stripMeta(current)) &&
        JSON.stringify(next.spec) !== JSON.stringify(current.spec)
      ) {
        next.metadata.generation = (current.metadata.generation ?? 1) + 1;
      }
    }
    if (canonicalJson(next) === canonicalJson(current)) return current; // nothing changed: no new revision, no event
    return this.put(kind, next, 'MODIFIED', current);
  }

  /** An RFC 7386 JSON merge patch. */
  patch(
    kind: ResourceKind,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    subresource?: 'status',
  ): KubeObject {
    if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
      throw new KubeError(400, 'BadRequest', 'a merge patch is a JSON object');
    const current = this.get(kind, namespace, name);
    const merged = mergePatch(current, patch) as KubeObject;
    const rv = (patch as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
    merged.metadata.resourceVersion = rv ?? current.metadata.resourceVersion;
    return this.update(kind, namespace, name, merged, subresource);
  }

  delete(kind: ResourceKind, namespace: string | undefined, name: string): KubeObject {
    const current = this.get(kind, namespace, name);
    this.objects.delete(keyOf(kind, namespace, name));
    this.revision += 1;
    current.metadata.resourceVersion = String(this.revision);
    this.emit(kind, { type: 'DELETED', object: current });
    this.persist();
    return current;
  }

  /**
   * Streams events of a kind. From `resourceVersion` the events after it are replayed (410 when it is
   * older than what is kept); without one, the current objects come first as ADDED.
   */
  watch(w: Watcher, resourceVersion: string | undefined): () => void {
    if (resourceVersion && resourceVersion !== '0') {
      const since = Number(resourceVersion);
      if (!Number.isInteger(since))
        throw new KubeError(400, 'BadRequest', `invalid resourceVersion '${resourceVersion}'`);
      if (since < this.revision && (this.history.length === 0 || this.history[0]!.rv > since + 1)) {
        throw new KubeError(410, 'Expired', `too old resource version: ${since} (${this.revision})`);
      }
      for (const h of this.history) if (h.rv > since && matches(w, h.kind, h.event.object)) w.send(h.event);
    } else {
      for (const o of this.list(w.kind, w.namespace, w.selector))
        if (!w.name || o.metadata.name === w.name) w.send({ type: 'ADDED', object: o });
    }
    this.watchers.add(w);
    return () => this.watchers.delete(w);
  }

  private put(kind: ResourceKind, o: KubeObject, type: 'ADDED' | 'MODIFIED', before?: KubeObject): KubeObject {
    this.revision += 1;
    o.metadata.resourceVersion = String(this.revision);
    this.objects.set(keyOf(kind, o.metadata.namespace, o.metadata.name), o);
    this.emit(kind, { type, object: clone(o) }, before);
    this.persist();
    return clone(o);
  }

  /**
   * Sends an event to the watchers it concerns. For a selective watch, an object that starts to match
   * is ADDED and one that stops matching is DELETED, as the API server reports them.
   */
  private emit(kind: ResourceKind, event: WatchEvent, before?: KubeObject): void {
    this.history.push({ rv: this.revision, kind, event });
    if (this.history.length > HISTORY) this.history.shift();
    for (const w of this.watchers) {
      const now = matches(w, kind, event.object);
      const was = event.type === 'MODIFIED' && before !== undefined && matches(w, kind, before);
      if (event.type !== 'MODIFIED') {
        if (now) w.send(event);
      } else if (now && was) w.send(event);
      else if (now) w.send({ type: 'ADDED', object: event.object });
      else if (was) w.send({ type: 'DELETED', object: event.object });
    }
  }

  /**
   * Writes at once when the last write is older than persistEveryMs, else once that much time has
   * passed: a burst of writes costs one file write per interval. The timer is not unref'd, so a
   * process that ends normally still writes; signal handlers call flush().
   */
  private persist(): void {
    if (!this.file) return;
    this.dirty = true;
    const wait = this.lastPersist + this.persistEveryMs - Date.now();
    if (wait <= 0) this.flush();
    else this.persistTimer ??= setTimeout(() => this.flush(), wait);
  }

  /** Writes pending changes now: to a temporary file renamed over the old one, so a crash never leaves half a file. */
  flush(): void {
    if (this.persistTimer) clearTimeout(this.persistTimer);
    this.persistTimer = undefined;
    if (!this.file || !this.dirty) return;
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify({ revision: this.revision, objects: [...this.objects.values()] }));
    renameSync(tmp, this.file);
    this.dirty = false;
    this.lastPersist = Date.now();
  }
}

function matches(w: Watcher, kind: ResourceKind, o: KubeObject): boolean {
  return (
    w.kind === kind &&
    (w.namespace === undefined || o.metadata.namespace === w.namespace) &&
    (!w.name || o.metadata.name === w.name) &&
    w.selector(o.metadata.labels ?? {})
  );
}

const keyOf = (kind: ResourceKind, namespace: string | undefined, name: string): string =>
  `${kind.plural}/${namespace ?? ''}/${name}`;
const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));
const stripMeta = (o: KubeObject): object => ({
  ...o,
  metadata: { ...o.metadata, resourceVersion: undefined, generation: undefined },
});

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return clone(patch);
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}
