// The state of the mock cluster: Kubernetes objects of a few kinds with the API server's semantics
// that clients rely on — resourceVersion (409 on a stale one), generation, the status subresource,
// merge patches, label selectors, watch events and the checks of names, labels and annotations —
// persisted to a file, each change journaled before it is applied (stateFile.ts).
import { canonicalJson } from 'cincy/canonicalJson';
import { kubeTime } from 'cincy/clock';
import { randomInt, randomUUID } from 'node:crypto';
import type { FieldSelector } from './fieldSelector.js';
import {
  apiVersionOf,
  crdName,
  KINDS,
  kindFor,
  kindNamed,
  objectSchema,
  type StoredObject,
  type ResourceKind,
} from './kinds.js';
import { crdSchema, pruneObject } from 'cincy/cluster/structuralSchema';
import { KubeError } from './kubeError.js';
import { matchAll, type LabelMatcher } from './labelSelector.js';
import { StateFile } from './stateFile.js';
import { checkDecodable, checkMetadata, checkRules, groupResource } from './validation.js';
import { jsonPatch, mergePatch, strategicMergePatch } from './patch.js';
import { applyConfig, recordUpdate } from './serverSideApply.js';

/** The patch types the API server applies (PATCH's Content-Type: merge-patch, json-patch, strategic-merge-patch). */
export type PatchType = 'merge' | 'json' | 'strategic';

export type StateEvent = { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: StoredObject };
/**
 * How a write is made. `dryRun`: checked and answered as it would be, but nothing is stored, journaled or
 * told to watchers, and no resourceVersion is used up (the API server's `?dryRun=All`).
 */
export interface WriteOptions {
  dryRun?: boolean;
  /** Who makes a create or an update (not an apply): recorded in managedFields, as kube-apiserver does. */
  fieldManager?: string;
}

/** A delete's options: a dry run, and the uid and resourceVersion the object must still have (409 when not). */
export interface DeleteOptions extends WriteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
}
interface Watcher {
  kind: ResourceKind;
  namespace: string | undefined;
  selector: LabelMatcher;
  fields?: FieldSelector;
  name: string | undefined;
  send(event: StateEvent): void;
}

/** The events kept for watches that resume from a resourceVersion: at most this many, and at most HISTORY_BYTES of objects. */
const HISTORY = 1000;
const HISTORY_BYTES = 64 * 1024 * 1024;
/** What generateName is followed by: five characters of this alphabet, as the API server draws them. */
const NAME_SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export class ClusterState {
  private objects = new Map<string, StoredObject>();
  /**
   * The JSON text of each stored object, made when first read: a stored object is never changed in place
   * (a write stores a new one), so a copy handed out is parsed from this text rather than stringified anew.
   */
  private readonly texts = new WeakMap<StoredObject, string>();
  private revision = 0;
  private readonly history: Array<{ rv: number; kind: ResourceKind; event: StateEvent; bytes: number }> = [];
  private historyBytes = 0;
  private readonly watchers = new Set<Watcher>();
  private readonly listeners = new Set<(kind: ResourceKind, event: StateEvent) => void>();
  /** The revision of the last change of each kind (by plural), for controllers that skip a pass when theirs did not change. */
  private readonly kindRevisions = new Map<string, number>();
  private readonly store: StateFile | undefined;
  /** The time creationTimestamp records: the mock sets its simulated clock here. */
  now: () => number = Date.now;

  /** With `file`, the state is read from it (and its journal) and every change is written to it. */
  constructor(file?: string) {
    if (!file) return;
    this.store = new StateFile(file);
    const saved = this.store.saved;
    this.revision = saved.revision;
    for (const o of saved.objects) this.objects.set(keyOf(kindFor(o), o.metadata.namespace, o.metadata.name), o);
    saved.changes.forEach((c, i) => {
      if ('put' in c) {
        let kind: ResourceKind;
        try {
          kind = kindFor(c.put);
        } catch (err) {
          throw new Error(`${this.store!.journal}: change ${i + 1}: ${(err as Error).message}`);
        }
        this.objects.set(keyOf(kind, c.put.metadata.namespace, c.put.metadata.name), c.put);
      } else this.objects.delete(c.delete);
      this.revision = c.rv;
    });
  }

  /** Bytes of a change the journal held only in part (the process was killed while writing it), dropped on loading. */
  get droppedBytes(): number {
    return this.store?.saved.droppedBytes ?? 0;
  }

  /** True when nothing was loaded: the caller seeds the inventory. */
  get empty(): boolean {
    return this.objects.size === 0;
  }

  get resourceVersion(): string {
    return String(this.revision);
  }

  /** An object; a 404 KubeError when there is none. */
  get(kind: ResourceKind, namespace: string | undefined, name: string): StoredObject {
    const o = this.find(kind, namespace, name);
    if (!o)
      throw new KubeError(404, 'NotFound', `${kind.plural}${kind.group ? `.${kind.group}` : ''} "${name}" not found`, {
        name,
        ...(kind.group && { group: kind.group }),
        kind: kind.plural,
      });
    return o;
  }

  /** An object, or undefined when there is none. */
  find(kind: ResourceKind, namespace: string | undefined, name: string): StoredObject | undefined {
    const o = this.objects.get(keyOf(kind, namespace, name));
    return o && this.copyOf(o);
  }

  /** True when the object exists (find without the copy). */
  has(kind: ResourceKind, namespace: string | undefined, name: string): boolean {
    return this.objects.has(keyOf(kind, namespace, name));
  }

  /** A copy of a stored object, the caller's to change. */
  private copyOf(o: StoredObject): StoredObject {
    let text = this.texts.get(o);
    if (text === undefined) {
      text = JSON.stringify(o);
      this.texts.set(o, text);
    }
    return JSON.parse(text) as StoredObject;
  }

  list(
    kind: ResourceKind,
    namespace?: string,
    selector: LabelMatcher = matchAll,
    fields: FieldSelector = () => true,
  ): StoredObject[] {
    return [...this.objects.values()]
      .filter(
        (o) =>
          o.kind === kind.kind &&
          (namespace === undefined || o.metadata.namespace === namespace) &&
          selector(o.metadata.labels ?? {}) &&
          fields(o),
      )
      .sort((a, b) =>
        `${a.metadata.namespace ?? ''}/${a.metadata.name}`.localeCompare(
          `${b.metadata.namespace ?? ''}/${b.metadata.name}`,
        ),
      )
      .map((o) => this.copyOf(o));
  }

  /**
   * A text that changes whenever an object of one of `kinds` changes (since this state was loaded): a
   * controller that depends only on them can skip a pass when it is the same as at its last one.
   */
  kindsVersion(kinds: ResourceKind[]): string {
    return kinds.map((k) => this.kindRevisions.get(k.plural) ?? 0).join('/');
  }

  /** True when the Namespace `name` exists. */
  hasNamespace(name: string): boolean {
    return this.objects.has(keyOf(kindNamed('Namespace'), undefined, name));
  }

  /**
   * Stores a new object, checked as the API server checks it (the JSON types, then the name by its kind's
   * rule, labels and annotations); a name made from metadata.generateName when there is none.
   * `createdAt` (ms) backdates creationTimestamp, for the inventory of a cluster installed in the past.
   */
  create(
    kind: ResourceKind,
    namespace: string | undefined,
    body: unknown,
    createdAt = this.now(),
    opts: WriteOptions = {},
  ): StoredObject {
    checkDecodable(kind, body);
    const meta = body.metadata ?? ({} as Partial<StoredObject['metadata']>);
    if (kind.namespaced && meta.namespace && meta.namespace !== namespace)
      throw new KubeError(
        400,
        'BadRequest',
        `the namespace of the provided object (${meta.namespace}) does not match the namespace sent on the request (${namespace})`,
      );
    const generateName = typeof meta.generateName === 'string' ? meta.generateName : '';
    let name = meta.name ?? '';
    if (!name && generateName) name = generatedName(generateName);
    checkMetadata(kind, name, body.metadata ?? undefined);
    if (this.objects.has(keyOf(kind, namespace, name)))
      throw new KubeError(409, 'AlreadyExists', `${groupResource(kind)} "${name}" already exists`, {
        name,
        ...(kind.group && { group: kind.group }),
        kind: kind.plural,
      });
    const metadata: StoredObject['metadata'] = {
      ...clone(meta),
      name,
      uid: randomUUID(),
      // Never in the future of the wall clock, whatever the simulated one says: kubectl ages it against its own.
      creationTimestamp: kubeTime(Math.min(createdAt, Date.now())),
    };
    // Only kinds that keep a generation have one (a Node or a ConfigMap has none), whatever the body says.
    if (kind.generation) metadata.generation = 1;
    else delete metadata.generation;
    if (kind.namespaced) metadata.namespace = namespace;
    else delete metadata.namespace; // a cluster-scoped object has none, whatever the body says
    delete metadata.resourceVersion;
    const o: StoredObject = { ...clone(body), apiVersion: apiVersionOf(kind), kind: kind.kind, metadata };
    if (opts.fieldManager)
      o.metadata.managedFields = recordUpdate(
        o,
        undefined,
        opts.fieldManager,
        objectSchema(kind),
        kubeTime(this.now()),
      );
    checkRules(kind, o, undefined, this.schemaOf(kind));
    if (opts.dryRun) return o; // as the API server answers a dry-run create: no resourceVersion
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
    body: unknown,
    subresource?: 'status',
    opts: WriteOptions = {},
  ): StoredObject {
    const current = this.get(kind, namespace, name);
    checkDecodable(kind, body);
    checkName(body, name, namespace);
    checkMetadata(kind, name, body.metadata);
    const rv = body.metadata.resourceVersion ?? undefined; // null stands for absent, as for the decoder
    if (rv !== undefined && rv !== '' && rv !== current.metadata.resourceVersion) {
      throw new KubeError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${groupResource(kind)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        { name, ...(kind.group && { group: kind.group }), kind: kind.plural },
      );
    }
    let next: StoredObject;
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
      if (!kind.namespaced) delete next.metadata.namespace;
      if (!kind.generation) delete next.metadata.generation;
      else if (JSON.stringify(generationFields(next)) !== JSON.stringify(generationFields(current)))
        next.metadata.generation = (current.metadata.generation ?? 1) + 1;
    }
    if (canonicalJson(next) === canonicalJson(current)) return current; // nothing changed: no new revision, no event
    if (opts.fieldManager)
      next.metadata.managedFields = recordUpdate(
        next,
        current,
        opts.fieldManager,
        objectSchema(kind),
        kubeTime(this.now()),
        subresource,
      );
    checkRules(kind, next, current, this.schemaOf(kind));
    if (opts.dryRun)
      return { ...next, metadata: { ...next.metadata, resourceVersion: current.metadata.resourceVersion } };
    return this.put(kind, next, 'MODIFIED', current);
  }

  /**
   * A patch: an RFC 7386 JSON merge patch (the default), an RFC 6902 JSON patch, or a strategic merge patch
   * (lists merged by the keys the kind's schema names). The patched object is checked as the API server
   * checks it: one it could not decode is a 422 on the patch, one without a name (`{"metadata": null}`) or
   * with another name is a 400, as for an update.
   */
  patch(
    kind: ResourceKind,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    subresource?: 'status',
    opts: WriteOptions = {},
    type: PatchType = 'merge',
  ): StoredObject {
    if (type !== 'json' && (typeof patch !== 'object' || patch === null || Array.isArray(patch)))
      throw new KubeError(400, 'BadRequest', `a ${type} patch is a JSON object`);
    const current = this.get(kind, namespace, name);
    const merged =
      type === 'json'
        ? jsonPatch(current, patch)
        : type === 'strategic'
          ? strategicMergePatch(current, patch, objectSchema(kind))
          : mergePatch(current, patch);
    try {
      checkDecodable(kind, merged);
    } catch (err) {
      if (!(err instanceof KubeError)) throw err;
      throw new KubeError(422, 'Invalid', `patch: Invalid value: ${err.message}`, {
        name,
        ...(kind.group && { group: kind.group }),
        kind: kind.kind,
        causes: [{ reason: 'FieldValueInvalid', message: err.message, field: 'patch' }],
      });
    }
    checkName(merged, name, namespace);
    // A patch that names a resourceVersion must be made on that one; one that names none applies to the latest.
    const rv =
      type === 'json'
        ? merged.metadata.resourceVersion
        : (patch as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
    merged.metadata.resourceVersion = rv ?? current.metadata.resourceVersion;
    return this.update(kind, namespace, name, merged, subresource, opts);
  }

  /**
   * Server-side apply of `config` by `manager` (serverSideApply.ts): creates the object when there is none,
   * otherwise merges the configuration into it and drops the fields the manager applied before but no
   * longer does. `created` says which.
   */
  apply(
    kind: ResourceKind,
    namespace: string | undefined,
    name: string,
    config: unknown,
    manager: string,
    opts: WriteOptions = {},
  ): { object: StoredObject; created: boolean } {
    checkDecodable(kind, config);
    const expected = apiVersionOf(kind);
    if (config.apiVersion !== expected || config.kind !== kind.kind)
      throw new KubeError(
        400,
        'BadRequest',
        `the applied configuration is a ${String(config.apiVersion)} ${String(config.kind)}, not a ${expected} ${kind.kind}`,
      );
    checkName(config, name, namespace);
    const current = this.find(kind, namespace, name);
    const next = applyConfig(current, config, manager, objectSchema(kind), kubeTime(this.now()));
    opts = { ...opts, fieldManager: undefined }; // an apply records itself, as an Apply
    if (!current) return { object: this.create(kind, namespace, next, undefined, opts), created: true };
    next.metadata.resourceVersion = config.metadata.resourceVersion ?? current.metadata.resourceVersion;
    return { object: this.update(kind, namespace, name, next, undefined, opts), created: false };
  }

  /** Deletes an object; a Namespace goes with everything in it, as the namespace controller would see to. */
  delete(kind: ResourceKind, namespace: string | undefined, name: string, opts: DeleteOptions = {}): StoredObject {
    const current = this.get(kind, namespace, name);
    for (const field of ['uid', 'resourceVersion'] as const) {
      const want = opts.preconditions?.[field];
      const label = field === 'uid' ? 'UID' : 'ResourceVersion';
      if (want !== undefined && want !== current.metadata[field])
        throw new KubeError(
          409,
          'Conflict',
          `Operation cannot be fulfilled on ${groupResource(kind)} "${name}": Precondition failed: ${label} in precondition: ${want}, ${label} in object meta: ${current.metadata[field] ?? ''}`,
        );
    }
    if (opts.dryRun) return current;
    if (kind.kind === 'Namespace')
      for (const o of [...this.objects.values()].filter((x) => x.metadata.namespace === name))
        this.delete(kindFor(o), name, o.metadata.name);
    const key = keyOf(kind, namespace, name);
    const rv = this.revision + 1;
    this.store?.appendDelete(rv, key);
    this.objects.delete(key);
    this.revision = rv;
    this.kindRevisions.set(kind.plural, rv);
    current.metadata.resourceVersion = String(rv);
    this.emit(kind, { type: 'DELETED', object: current }, undefined, JSON.stringify(current).length);
    this.store?.snapshotWhenDue(() => this.snapshotJson());
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
      for (const o of this.list(w.kind, w.namespace, w.selector, w.fields))
        if (!w.name || o.metadata.name === w.name) w.send({ type: 'ADDED', object: o });
    }
    this.watchers.add(w);
    return () => this.watchers.delete(w);
  }

  /** Tells `listener` of every change from now on, after it is made; the returned function stops it. */
  onChange(listener: (kind: ResourceKind, event: StateEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Stores an object as another API server holds it (a copy kept in step with that server): nothing is
   * checked, its metadata is kept as that server wrote it, and only its resourceVersion is this state's own.
   */
  adopt(kind: ResourceKind, o: StoredObject): StoredObject {
    const before = this.objects.get(keyOf(kind, o.metadata.namespace, o.metadata.name));
    return this.put(kind, clone(o), before ? 'MODIFIED' : 'ADDED', before && clone(before));
  }

  /** Removes an object another API server no longer holds (nothing in it goes with it). */
  forget(kind: ResourceKind, namespace: string | undefined, name: string): void {
    const key = keyOf(kind, namespace, name);
    const current = this.objects.get(key);
    if (!current) return;
    const rv = this.revision + 1;
    this.store?.appendDelete(rv, key);
    this.objects.delete(key);
    this.revision = rv;
    this.kindRevisions.set(kind.plural, rv);
    const gone = { ...clone(current), metadata: { ...current.metadata, resourceVersion: String(rv) } };
    this.emit(kind, { type: 'DELETED', object: gone }, undefined, JSON.stringify(gone).length);
  }

  /** Journals the object, then stores it and tells the watchers: a change that cannot be written is not made. */
  private put(
    kind: ResourceKind,
    given: StoredObject,
    type: 'ADDED' | 'MODIFIED',
    before?: StoredObject,
  ): StoredObject {
    const o = this.pruned(kind, given);
    const rv = this.revision + 1;
    o.metadata.resourceVersion = String(rv);
    const json = JSON.stringify(o);
    this.store?.appendPut(rv, json);
    this.revision = rv;
    this.kindRevisions.set(kind.plural, rv);
    this.objects.set(keyOf(kind, o.metadata.namespace, o.metadata.name), o);
    this.texts.set(o, json);
    this.emit(kind, { type, object: JSON.parse(json) as StoredObject }, before, json.length);
    this.store?.snapshotWhenDue(() => this.snapshotJson());
    if (kind.kind === 'CustomResourceDefinition') this.pruneKindOf(o);
    return JSON.parse(json) as StoredObject;
  }

  /** The structural schema of the CRD stored now for a kind a CRD serves. */
  private schemaOf(kind: ResourceKind): ReturnType<typeof crdSchema> {
    if (!kind.crd && !kind.optional) return undefined;
    return crdSchema(
      this.objects.get(keyOf(kindNamed('CustomResourceDefinition'), undefined, crdName(kind))),
      kind.version,
    );
  }

  /** An object of a kind a CRD serves, as the schema of the CRD stored now lets it be stored (structuralSchema.ts). */
  private pruned(kind: ResourceKind, o: StoredObject): StoredObject {
    const schema = this.schemaOf(kind);
    return schema ? pruneObject(o, schema) : o;
  }

  /**
   * A CRD written: the objects of its kind read as its schema prunes them from now on, as the API server
   * prunes what it reads from etcd (the stored revisions stay; only what is served changes).
   */
  private pruneKindOf(crd: StoredObject): void {
    const kind = KINDS.find((k) => (k.crd || k.optional) && crdName(k) === crd.metadata.name);
    if (!kind) return;
    for (const [key, o] of this.objects) if (kindFor(o) === kind) this.objects.set(key, this.pruned(kind, o));
  }

  /**
   * Resolves once every change made so far is on disk (at once without a state file): the API server
   * answers a write only then. Rejects when the state file cannot be written.
   */
  durable(): Promise<void> {
    return this.store?.durable() ?? Promise.resolve();
  }

  /**
   * Sends an event to the watchers it concerns. For a selective watch, an object that starts to match
   * is ADDED and one that stops matching is DELETED, as the API server reports them.
   */
  private emit(kind: ResourceKind, event: StateEvent, before: StoredObject | undefined, bytes: number): void {
    for (const listener of this.listeners) listener(kind, event);
    this.history.push({ rv: this.revision, kind, event, bytes });
    this.historyBytes += bytes;
    while (this.history.length > HISTORY || (this.historyBytes > HISTORY_BYTES && this.history.length > 1))
      this.historyBytes -= this.history.shift()!.bytes;
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
   * Writes the whole state as a new snapshot and empties the journal (stateFile.ts): loading then reads
   * one file. Nothing depends on it for safety; the CLI calls it when it stops.
   */
  flush(): void {
    this.store?.snapshot(this.snapshotJson());
  }

  /** Closes the state file (after flush(), when the process goes on without this state). */
  close(): void {
    this.store?.close();
  }

  private snapshotJson(): string {
    return JSON.stringify({ revision: this.revision, objects: [...this.objects.values()] });
  }
}

function matches(w: Watcher, kind: ResourceKind, o: StoredObject): boolean {
  return (
    w.kind === kind &&
    (w.namespace === undefined || o.metadata.namespace === w.namespace) &&
    (!w.name || o.metadata.name === w.name) &&
    w.selector(o.metadata.labels ?? {}) &&
    (!w.fields || w.fields(o))
  );
}

/**
 * The checks the API server makes of the name and namespace of an object written to a URL: the object
 * must name itself, by the same name, and any namespace it gives must be the URL's.
 */
function checkName(body: StoredObject, name: string, namespace: string | undefined): void {
  const meta = body.metadata ?? {};
  if (!meta.name)
    throw new KubeError(
      400,
      'BadRequest',
      `the name of the object (${name} based on URL) was undeterminable: name must be provided`,
    );
  if (meta.name !== name)
    throw new KubeError(
      400,
      'BadRequest',
      `the name of the object (${meta.name}) does not match the name on the URL (${name})`,
    );
  if (namespace && meta.namespace && meta.namespace !== namespace)
    throw new KubeError(
      400,
      'BadRequest',
      `the namespace of the object (${meta.namespace}) does not match the namespace on the request (${namespace})`,
    );
}

/** generateName and five random characters, the prefix cut so that the name stays within 63 characters. */
function generatedName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_SUFFIX_ALPHABET[randomInt(NAME_SUFFIX_ALPHABET.length)];
  return `${prefix.slice(0, 58)}${suffix}`;
}

const keyOf = (kind: ResourceKind, namespace: string | undefined, name: string): string =>
  `${kind.plural}/${namespace ?? ''}/${name}`;
const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));
/** What moves metadata.generation when it changes: everything but metadata and status (the spec, mostly). */
const generationFields = (o: StoredObject): object => ({ ...o, metadata: undefined, status: undefined });
