// Pruning, as kube-apiserver does it to a custom resource by its CRD's structural schema: every field the
// schema does not declare is dropped, silently, unless the schema keeps unknown fields there
// (x-kubernetes-preserve-unknown-fields); apiVersion, kind and metadata always stay. The agent asks it before
// replacing a CRD (what would the objects of its kind lose?); the simulated API server stores by it.

export type JsonSchema = {
  required?: string[];
  'x-kubernetes-validations'?: unknown[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
};

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The object's openAPIV3Schema for `version` in a stored CRD, if it declares one. */
export function crdSchema(crd: { spec?: unknown } | undefined, version: string): JsonSchema | undefined {
  const versions = (crd?.spec as { versions?: Array<{ name?: string; schema?: { openAPIV3Schema?: JsonSchema } }> })
    ?.versions;
  return versions?.find((v) => v.name === version)?.schema?.openAPIV3Schema;
}

/** `o` as the API server stores it under `schema`: apiVersion, kind and metadata always, the rest as declared. */
export function pruneObject<T extends Record<string, unknown>>(o: T, schema: JsonSchema): T {
  const pruned = prune(o, schema, true) as T;
  for (const key of ['apiVersion', 'kind', 'metadata'] as const)
    if (key in o) (pruned as Record<string, unknown>)[key] = o[key];
  return pruned;
}

function prune(value: unknown, schema: JsonSchema | undefined, root = false): unknown {
  if (!schema || schema['x-kubernetes-int-or-string']) return value;
  if (Array.isArray(value)) return schema.items ? value.map((v) => prune(v, schema.items)) : value;
  if (!isObject(value)) return value;
  const keep = new Set<string>(
    schema['x-kubernetes-embedded-resource'] && !root ? ['apiVersion', 'kind', 'metadata'] : [],
  );
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const declared = schema.properties?.[key];
    const additional = schema.additionalProperties;
    if (declared) out[key] = prune(v, declared);
    else if (isObject(additional)) out[key] = prune(v, additional);
    else if (additional === true || schema['x-kubernetes-preserve-unknown-fields'] || keep.has(key)) out[key] = v;
  }
  return out;
}
