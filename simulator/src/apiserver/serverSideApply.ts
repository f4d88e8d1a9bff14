// Server-side apply (PATCH with application/apply-patch+yaml, `kubectl apply --server-side`): the applied
// configuration is merged into the object (maps field by field, lists by the merge key or as sets where the
// schema says so, other lists replaced), the fields it sets are recorded as its manager's in
// metadata.managedFields (FieldsV1), and the fields the manager set last time but no longer sets are
// removed. Conflicts with other managers are not detected: the mock records only appliers' fields.
import { resolve, type Schema } from './kinds/schema.js';
import type { StoredObject } from './kinds.js';
import { strategicMergePatch } from './patch.js';

type FieldSet = Record<string, unknown>;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const childOf = (s: Schema | undefined, key: string): Schema | undefined => {
  const r = resolve(s);
  return r?.properties?.[key] ?? r?.additionalProperties;
};

/** The FieldsV1 set of the fields `value` sets (f:<field>, k:{"<key>":…} for list items, v:<json> for set members). */
export function fieldSet(value: unknown, schema: Schema | undefined): FieldSet {
  const out: FieldSet = {};
  if (!isObject(value)) return out;
  for (const [key, v] of Object.entries(value)) {
    const sub = childOf(schema, key);
    const list = resolve(sub);
    if (isObject(v)) out[`f:${key}`] = fieldSet(v, sub);
    else if (Array.isArray(v) && list?.mergeKey) {
      const items: FieldSet = {};
      for (const item of v)
        if (isObject(item))
          items[`k:${JSON.stringify({ [list.mergeKey]: item[list.mergeKey] })}`] = {
            '.': {},
            ...fieldSet(item, list.items),
          };
      out[`f:${key}`] = items;
    } else if (Array.isArray(v) && list?.mergeSet)
      out[`f:${key}`] = Object.fromEntries(v.map((x) => [`v:${JSON.stringify(x)}`, {}]));
    else out[`f:${key}`] = {};
  }
  return out;
}

/** The fields an applied configuration sets, as recorded: what names the object is not owned. */
export function appliedFields(config: StoredObject, schema: Schema | undefined): FieldSet {
  const set = fieldSet({ ...config, apiVersion: undefined, kind: undefined, status: undefined }, schema);
  delete set['f:apiVersion'];
  delete set['f:kind'];
  delete set['f:status'];
  const meta = set['f:metadata'] as FieldSet | undefined;
  if (meta) {
    for (const k of [
      'f:name',
      'f:namespace',
      'f:resourceVersion',
      'f:uid',
      'f:creationTimestamp',
      'f:managedFields',
      'f:generation',
    ])
      delete meta[k];
    if (Object.keys(meta).length === 0) delete set['f:metadata'];
  }
  return set;
}

/** Removes from `o` what `before` has and `after` lacks (the fields a manager no longer applies). */
function removeDropped(o: unknown, before: FieldSet, after: FieldSet): void {
  for (const [key, sub] of Object.entries(before)) {
    if (key === '.') continue;
    const kept = after[key] as FieldSet | undefined;
    if (key.startsWith('f:') && isObject(o)) {
      const field = key.slice(2);
      if (kept === undefined) delete o[field];
      else removeDropped(o[field], sub as FieldSet, kept);
    } else if (key.startsWith('k:') && Array.isArray(o)) {
      const id = JSON.parse(key.slice(2)) as Record<string, unknown>;
      const at = o.findIndex(
        (x) => isObject(x) && Object.entries(id).every(([k, v]) => JSON.stringify(x[k]) === JSON.stringify(v)),
      );
      if (at < 0) continue;
      if (kept === undefined) o.splice(at, 1);
      else removeDropped(o[at], sub as FieldSet, kept);
    } else if (key.startsWith('v:') && Array.isArray(o) && kept === undefined) {
      const at = o.findIndex((x) => JSON.stringify(x) === key.slice(2));
      if (at >= 0) o.splice(at, 1);
    }
  }
}

interface ManagedFieldsEntry {
  manager: string;
  operation: string;
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: FieldSet;
  subresource?: string;
}

/**
 * `current` (undefined when there is none yet) with `config` applied by `manager` at `time`: the object to
 * store, its managedFields saying what each applier set.
 */
export function applyConfig(
  current: StoredObject | undefined,
  config: StoredObject,
  manager: string,
  schema: Schema | undefined,
  time: string,
): StoredObject {
  const managed = ((current?.metadata.managedFields as ManagedFieldsEntry[] | undefined) ?? []).filter(
    (m) => !(m.manager === manager && m.operation === 'Apply'),
  );
  const previous = (current?.metadata.managedFields as ManagedFieldsEntry[] | undefined)?.find(
    (m) => m.manager === manager && m.operation === 'Apply',
  );
  const fields = appliedFields(config, schema);
  const body = { ...config, metadata: { ...config.metadata } };
  delete body.metadata.managedFields;
  const merged = (current ? strategicMergePatch(current, body, schema) : body) as StoredObject;
  if (previous) removeDropped(merged, previous.fieldsV1, fields);
  merged.metadata.managedFields = [
    ...managed,
    { manager, operation: 'Apply', apiVersion: config.apiVersion, time, fieldsType: 'FieldsV1', fieldsV1: fields },
  ];
  return merged;
}

/**
 * The managedFields of `next` written over `current` (undefined for a create) by `manager` with a create, an
 * update or a patch (not an apply), as kube-apiserver records them: one `Update` entry per manager (and per
 * subresource) owning the fields it set or changed, added to those it owned before; its time the write's.
 * (The fields it takes over stay listed under their earlier managers too: ownership is not moved.)
 */
export function recordUpdate(
  next: StoredObject,
  current: StoredObject | undefined,
  manager: string,
  schema: Schema | undefined,
  time: string,
  subresource?: 'status',
): ManagedFieldsEntry[] {
  // A write that sends no managedFields keeps the stored ones, as kube-apiserver does.
  const sent = next.metadata.managedFields as ManagedFieldsEntry[] | undefined;
  const entries = sent?.length ? sent : ((current?.metadata.managedFields as ManagedFieldsEntry[] | undefined) ?? []);
  const mine = (m: ManagedFieldsEntry): boolean =>
    m.manager === manager && m.operation === 'Update' && m.subresource === subresource;
  const changed =
    subresource === 'status'
      ? fieldSet({ status: changes(next.status, current?.status) }, schema)
      : appliedFields({ ...(changes(next, current) as StoredObject), status: undefined }, schema);
  const fieldsV1 = mergeFieldSets(entries.find(mine)?.fieldsV1 ?? {}, changed);
  if (Object.keys(fieldsV1).length === 0) return entries.filter((m) => !mine(m));
  const entry: ManagedFieldsEntry = {
    manager,
    operation: 'Update',
    apiVersion: next.apiVersion,
    time,
    fieldsType: 'FieldsV1',
    fieldsV1,
    ...(subresource && { subresource }),
  };
  return [...entries.filter((m) => !mine(m)), entry];
}

/** What of `next` is new or different from `before`: objects compared key by key, anything else whole. */
function changes(next: unknown, before: unknown): unknown {
  if (!isPlainObject(next) || !isPlainObject(before))
    return JSON.stringify(next) === JSON.stringify(before) ? undefined : next;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(next)) {
    const d = changes(value, before[key]);
    if (d !== undefined) out[key] = d;
  }
  return Object.keys(out).length ? out : undefined;
}

function mergeFieldSets(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = { ...a };
  for (const [key, value] of Object.entries(b))
    out[key] = key in out ? mergeFieldSets(out[key] as FieldSet, value as FieldSet) : value;
  return out;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
