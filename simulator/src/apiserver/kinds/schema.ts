// OpenAPI schemas of the mock cluster's kinds, written once and used four ways: the /openapi/v2 and
// /openapi/v3 documents (kubectl apply, edit, explain and diff read them), the schemas of the CRDs it
// lists, the strategic merge patch (its list merge keys) and the server-side field validation. Shared
// parts are named definitions, referred to by name; `definitions` holds every one declared.

export type SchemaType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';

export interface Schema {
  type?: SchemaType;
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema;
  items?: Schema;
  required?: string[];
  enum?: string[];
  nullable?: boolean;
  /** The name of a definition (in `definitions`) this schema stands for. */
  ref?: string;
  /** Anything goes below: the API server keeps what it is given. */
  preserveUnknown?: boolean;
  intOrString?: boolean;
  /** A list merged by this key in a strategic merge patch (its items are objects). */
  mergeKey?: string;
  /** A list of scalars merged as a set in a strategic merge patch. */
  mergeSet?: boolean;
  /** A field the CRD has only where this feature gate is on (as OpenShift's per-feature-set CRDs have it). */
  gate?: string;
}

/** `s` without the fields of the gates not in `on`, as the CRD of a feature set that lacks them. */
export function ungated(s: Schema, on: ReadonlySet<string>): Schema {
  const out: Schema = { ...s };
  if (s.properties)
    out.properties = Object.fromEntries(
      Object.entries(s.properties)
        .filter(([, v]) => !v.gate || on.has(v.gate))
        .map(([k, v]) => [k, ungated(v, on)]),
    );
  if (s.items) out.items = ungated(s.items, on);
  return out;
}

/** Named schemas (as the API server names them, e.g. io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta). */
export const definitions = new Map<string, Schema>();

/** Declares a named definition; returns a reference to it. */
export function define(name: string, schema: Schema): Schema {
  if (definitions.has(name)) throw new Error(`schema ${name} is declared twice`);
  definitions.set(name, schema);
  return { ref: name };
}

/** The schema a reference stands for (the schema itself when it is none); undefined when unknown. */
export function resolve(s: Schema | undefined): Schema | undefined {
  if (!s?.ref) return s;
  const d = definitions.get(s.ref);
  if (!d) throw new Error(`schema ${s.ref} is not declared`);
  return d;
}

export const str = (description: string, more: Partial<Schema> = {}): Schema => ({
  type: 'string',
  description,
  ...more,
});
export const int = (description: string, format: 'int32' | 'int64' = 'int32'): Schema => ({
  type: 'integer',
  format,
  description,
});
export const bool = (description: string): Schema => ({ type: 'boolean', description });
export const time = (description: string): Schema => ({ type: 'string', format: 'date-time', description });
export const intOrString = (description: string): Schema => ({ intOrString: true, description });
export const obj = (
  description: string,
  properties: Record<string, Schema>,
  required?: string[],
  more: Partial<Schema> = {},
): Schema => ({
  type: 'object',
  description,
  properties,
  ...(required?.length && { required }),
  ...more,
});
/** A list; `mergeKey` merges it by that key of its items in a strategic merge patch. */
export const arrayOf = (description: string, items: Schema, more: Partial<Schema> = {}): Schema => ({
  type: 'array',
  description,
  items,
  ...more,
});
/** A map of string to `values` (strings when not given). */
export const map = (description: string, values: Schema = { type: 'string' }): Schema => ({
  type: 'object',
  description,
  additionalProperties: values,
});
/** A field whose content the API keeps as given (RawExtension, free-form configuration). */
export const free = (description: string): Schema => ({ type: 'object', description, preserveUnknown: true });
/** A reference to a definition, with this field's own description. */
export const ref = (name: string, description: string): Schema => ({ ref: name, description });

/** Every definition `s` refers to, transitively. */
export function referenced(s: Schema, into = new Set<string>()): Set<string> {
  if (s.ref && !into.has(s.ref)) {
    into.add(s.ref);
    referenced(resolve(s)!, into);
  }
  for (const p of Object.values(s.properties ?? {})) referenced(p, into);
  if (s.items) referenced(s.items, into);
  if (s.additionalProperties) referenced(s.additionalProperties, into);
  return into;
}

/**
 * The schema as OpenAPI JSON. `refPrefix` is where definitions live ('#/components/schemas/' in v3,
 * '#/definitions/' in v2); `inline` writes definitions in place instead (a CRD's openAPIV3Schema).
 */
export function render(s: Schema, refPrefix: string, inline = false): Record<string, unknown> {
  if (s.ref) {
    if (inline) {
      const { description } = s;
      return { ...render(resolve(s)!, refPrefix, true), ...(description && { description }) };
    }
    const target = `${refPrefix}${s.ref}`;
    // v3 wraps a reference in allOf so that the field keeps its own description, as the API server's does.
    if (refPrefix.startsWith('#/components/'))
      return { ...(s.description && { description: s.description }), allOf: [{ $ref: target }] };
    return { ...(s.description && { description: s.description }), $ref: target };
  }
  const out: Record<string, unknown> = {};
  if (s.description) out.description = s.description;
  if (s.type) out.type = s.type;
  if (s.format) out.format = s.format;
  if (s.enum) out.enum = s.enum;
  if (s.nullable) out.nullable = true;
  if (s.required) out.required = s.required;
  if (s.properties)
    out.properties = Object.fromEntries(
      Object.entries(s.properties).map(([k, v]) => [k, render(v, refPrefix, inline)]),
    );
  if (s.additionalProperties) out.additionalProperties = render(s.additionalProperties, refPrefix, inline);
  if (s.items) out.items = render(s.items, refPrefix, inline);
  if (s.preserveUnknown) out['x-kubernetes-preserve-unknown-fields'] = true;
  if (s.intOrString) {
    if (inline)
      Object.assign(out, { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
    else Object.assign(out, { type: 'string', format: 'int-or-string' });
  }
  if (s.mergeKey) {
    out['x-kubernetes-patch-merge-key'] = s.mergeKey;
    out['x-kubernetes-patch-strategy'] = 'merge';
    out['x-kubernetes-list-type'] = 'map';
    out['x-kubernetes-list-map-keys'] = [s.mergeKey];
  }
  if (s.mergeSet) {
    out['x-kubernetes-patch-strategy'] = 'merge';
    out['x-kubernetes-list-type'] = 'set';
  }
  return out;
}
