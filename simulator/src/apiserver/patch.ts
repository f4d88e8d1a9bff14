// The patches the API server applies: a JSON merge patch (RFC 7386), a JSON patch (RFC 6902), and a
// strategic merge patch, whose lists merge by the key the kind's schema names (containers by name,
// conditions by type) and whose directives ($patch, $setElementOrder, $deleteFromPrimitiveList,
// $retainKeys) kubectl apply, edit and diff send.
import { KubeError } from './kubeError.js';
import { resolve, type Schema } from './kinds/schema.js';

export const PATCH_TYPES = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

type Json = unknown;
type JsonObject = Record<string, Json>;

const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

/** Sets `out[key]`, a key such as __proto__ being data here, never the object's prototype. */
function put(out: JsonObject, key: string, value: Json): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/** RFC 7386: the patch's members replace the target's, recursively for objects; null removes one. */
export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return clone(patch);
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else put(out, k, mergePatch(Object.hasOwn(out, k) ? out[k] : undefined, v));
  }
  return out;
}

/** A JSON patch that cannot be applied: a 422, as the API server answers. */
const jsonPatchFailed = (message: string): KubeError => new KubeError(422, 'Invalid', message);

/** The keys of a JSON pointer (RFC 6901). */
function pointer(path: unknown, op: string): string[] {
  if (typeof path !== 'string' || (path !== '' && !path.startsWith('/')))
    throw new KubeError(400, 'BadRequest', `the ${op} operation's path ${JSON.stringify(path)} is not a JSON pointer`);
  return path === ''
    ? []
    : path
        .slice(1)
        .split('/')
        .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The container a pointer's last key is in, and that key; a 422 when the container is missing. */
function parentOf(doc: Json, keys: string[], op: string, path: string): { parent: Json; key: string } {
  let at = doc;
  for (const k of keys.slice(0, -1)) {
    const next = Array.isArray(at) ? at[Number(k)] : isObject(at) && Object.hasOwn(at, k) ? at[k] : undefined;
    if (next === undefined) throw jsonPatchFailed(`${op} operation does not apply: doc is missing path: "${path}"`);
    at = next;
  }
  return { parent: at, key: keys[keys.length - 1]! };
}

function getAt(doc: Json, path: string, op: string): Json {
  let at = doc;
  for (const k of pointer(path, op)) {
    const next = Array.isArray(at)
      ? /^\d+$/.test(k)
        ? at[Number(k)]
        : undefined
      : isObject(at) && Object.hasOwn(at, k)
        ? at[k]
        : undefined;
    if (next === undefined) throw jsonPatchFailed(`${op} operation does not apply: doc is missing path: "${path}"`);
    at = next;
  }
  return at;
}

function removeAt(doc: Json, path: string, op: string): Json {
  const keys = pointer(path, op);
  if (keys.length === 0) throw jsonPatchFailed(`${op} operation does not apply: cannot remove the whole document`);
  const { parent, key } = parentOf(doc, keys, op, path);
  if (Array.isArray(parent)) {
    const i = Number(key);
    if (!/^\d+$/.test(key) || i >= parent.length)
      throw jsonPatchFailed(`${op} operation does not apply: doc is missing path: "${path}"`);
    return parent.splice(i, 1)[0];
  }
  if (!isObject(parent) || !Object.hasOwn(parent, key))
    throw jsonPatchFailed(`${op} operation does not apply: doc is missing path: "${path}"`);
  const old = parent[key];
  delete parent[key];
  return old;
}

/** Adds (or, with `replace`, replaces) the value at `path`; returns the new document. */
function addAt(doc: Json, path: string, value: Json, op: string, replace: boolean): Json {
  const keys = pointer(path, op);
  if (keys.length === 0) return value;
  const { parent, key } = parentOf(doc, keys, op, path);
  if (Array.isArray(parent)) {
    const i = key === '-' ? parent.length : Number(key);
    if (!(key === '-' || /^\d+$/.test(key)) || i > parent.length || (replace && i >= parent.length))
      throw jsonPatchFailed(`${op} operation does not apply: doc is missing path: "${path}"`);
    parent.splice(i, replace ? 1 : 0, value);
  } else if (isObject(parent)) {
    if (replace && !Object.hasOwn(parent, key))
      throw jsonPatchFailed(`${op} operation does not apply: doc is missing key: ${path}: missing value`);
    put(parent, key, value);
  } else throw jsonPatchFailed(`${op} operation does not apply: doc is missing path: "${path}"`);
  return doc;
}

/** RFC 6902: a list of operations applied in order; any that fails fails the whole patch. */
export function jsonPatch(target: Json, patch: Json): Json {
  if (!Array.isArray(patch))
    throw new KubeError(400, 'BadRequest', 'a JSON patch is a list of operations ([{"op": …, "path": …}])');
  let doc = clone(target);
  for (const [i, raw] of patch.entries()) {
    if (!isObject(raw) || typeof raw.op !== 'string')
      throw new KubeError(400, 'BadRequest', `JSON patch operation ${i + 1} has no "op"`);
    const { op, path } = raw as { op: string; path: string };
    const needValue = (): Json => {
      if (!Object.hasOwn(raw, 'value'))
        throw new KubeError(400, 'BadRequest', `JSON patch operation ${i + 1} (${op}) has no "value"`);
      return clone(raw.value);
    };
    switch (op) {
      case 'add':
        doc = addAt(doc, path, needValue(), op, false);
        break;
      case 'replace':
        doc = addAt(doc, path, needValue(), op, true);
        break;
      case 'remove':
        removeAt(doc, path, op);
        break;
      case 'move': {
        const value = removeAt(doc, String(raw.from), op);
        doc = addAt(doc, path, value, op, false);
        break;
      }
      case 'copy':
        doc = addAt(doc, path, clone(getAt(doc, String(raw.from), op)), op, false);
        break;
      case 'test': {
        const value = needValue();
        if (JSON.stringify(getAt(doc, path, op)) !== JSON.stringify(value))
          throw jsonPatchFailed(`testing value ${path} failed: test failed`);
        break;
      }
      default:
        throw new KubeError(400, 'BadRequest', `JSON patch operation ${i + 1}: unknown op ${JSON.stringify(op)}`);
    }
  }
  return doc;
}

const DIRECTIVE = '$patch';
const SET_ORDER = '$setElementOrder/';
const DELETE_FROM = '$deleteFromPrimitiveList/';
const RETAIN_KEYS = '$retainKeys';

const childSchema = (s: Schema | undefined, key: string): Schema | undefined => {
  const r = resolve(s);
  return resolve(r?.properties?.[key] ?? r?.additionalProperties);
};

/** A value with every strategic-merge directive removed (what goes in when nothing is merged). */
function withoutDirectives(v: Json): Json {
  if (Array.isArray(v)) return v.filter((x) => !(isObject(x) && x[DIRECTIVE] === 'delete')).map(withoutDirectives);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith('$') && x !== null) put(out, k, withoutDirectives(x));
  return out;
}

/**
 * A strategic merge patch: maps merge as in a merge patch; a list the schema gives a merge key merges item
 * by item on that key, a list it marks as a set merges as a set, any other list is replaced.
 */
export function strategicMergePatch(target: Json, patch: Json, schema: Schema | undefined): Json {
  if (!isObject(patch)) throw new KubeError(400, 'BadRequest', 'a strategic merge patch is a JSON object');
  return mergeMap(isObject(target) ? target : {}, patch, schema);
}

function mergeMap(original: JsonObject, patch: JsonObject, schema: Schema | undefined): Json {
  const directive = patch[DIRECTIVE];
  if (directive === 'replace') return withoutDirectives(patch);
  if (directive === 'delete') return undefined;
  if (directive !== undefined && directive !== 'merge')
    throw new KubeError(400, 'BadRequest', `unknown patch type: ${JSON.stringify(directive)} in map`);
  const out: JsonObject = clone(original);
  const orders: Record<string, Json[]> = {};
  const deletions: Record<string, Json[]> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === DIRECTIVE || key === RETAIN_KEYS) continue;
    if (key.startsWith(SET_ORDER)) orders[key.slice(SET_ORDER.length)] = value as Json[];
    else if (key.startsWith(DELETE_FROM)) deletions[key.slice(DELETE_FROM.length)] = value as Json[];
    else if (value === null) delete out[key];
    else {
      const sub = childSchema(schema, key);
      const current = Object.hasOwn(out, key) ? out[key] : undefined;
      let merged: Json;
      if (isObject(value)) merged = mergeMap(isObject(current) ? current : {}, value, sub);
      else if (Array.isArray(value))
        merged = mergeList(Array.isArray(current) ? current : [], value, schemaOfList(schema, key));
      else merged = value;
      if (merged === undefined) delete out[key];
      else put(out, key, merged);
    }
  }
  for (const [key, values] of Object.entries(deletions)) {
    if (!Array.isArray(values)) throw new KubeError(400, 'BadRequest', `${DELETE_FROM}${key} must be a list`);
    const list = out[key];
    if (Array.isArray(list))
      put(
        out,
        key,
        list.filter((x) => !values.some((d) => JSON.stringify(d) === JSON.stringify(x))),
      );
  }
  for (const [key, order] of Object.entries(orders)) {
    const list = out[key];
    if (Array.isArray(list) && Array.isArray(order))
      put(out, key, ordered(list, order, resolve(schemaOfList(schema, key))?.mergeKey));
  }
  const retain = patch[RETAIN_KEYS];
  if (Array.isArray(retain)) for (const k of Object.keys(out)) if (!retain.includes(k)) delete out[k];
  return out;
}

const schemaOfList = (schema: Schema | undefined, key: string): Schema | undefined => {
  const r = resolve(schema);
  return r?.properties?.[key] ?? r?.additionalProperties;
};

/** `list` in the order `order` gives (by merge key, or by value), items it does not name after them. */
function ordered(list: Json[], order: Json[], mergeKey: string | undefined): Json[] {
  const id = (x: Json): string => JSON.stringify(mergeKey && isObject(x) ? x[mergeKey] : x);
  const rank = new Map(order.map((x, i) => [id(x), i]));
  return [...list].sort((a, b) => (rank.get(id(a)) ?? Infinity) - (rank.get(id(b)) ?? Infinity));
}

function mergeList(original: Json[], patch: Json[], listSchema: Schema | undefined): Json {
  const s = resolve(listSchema);
  const itemSchema = resolve(s?.items);
  if (patch.some((x) => isObject(x) && x[DIRECTIVE] === 'replace'))
    return withoutDirectives(patch.filter((x) => !(isObject(x) && x[DIRECTIVE] === 'replace')));
  if (s?.mergeSet) {
    const out = [...original];
    for (const v of patch) if (!out.some((x) => JSON.stringify(x) === JSON.stringify(v))) out.push(v);
    return out;
  }
  const key = s?.mergeKey;
  if (!key) return withoutDirectives(patch);
  const out = clone(original);
  for (const item of patch) {
    if (!isObject(item) || !Object.hasOwn(item, key))
      throw new KubeError(
        400,
        'BadRequest',
        `map: ${JSON.stringify(item)} does not contain declared merge key: ${key}`,
      );
    const at = out.findIndex((x) => isObject(x) && JSON.stringify(x[key]) === JSON.stringify(item[key]));
    if (item[DIRECTIVE] === 'delete') {
      if (at >= 0) out.splice(at, 1);
      continue;
    }
    if (at >= 0) out[at] = mergeMap(out[at] as JsonObject, item, itemSchema);
    else out.push(withoutDirectives(item));
  }
  return out;
}
