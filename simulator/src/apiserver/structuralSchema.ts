// What the API server does with a custom resource by its CRD's structural schema, the one of the CRD stored
// now (so a CRD replaced with a poorer schema prunes objects of its kind from then on, on the mock as on a real
// cluster). Pruning: every field the schema does not declare is dropped from what is stored, silently, unless
// the schema keeps unknown fields there (x-kubernetes-preserve-unknown-fields). Required fields: an object
// lacking one is refused (422), and its CEL rules are then not evaluated, which the answer also says.

type JsonSchema = {
  required?: string[];
  'x-kubernetes-validations'?: unknown[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

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

export interface SchemaViolation {
  field: string;
  reason: string;
  message: string;
}

/**
 * The required fields `o` lacks, each as the API server names it (`spec.clusterID: Required value`); when any
 * is missing and the schema has CEL rules (or the mock's kind has them in code), the cause kube-apiserver adds
 * for the rules it did not check.
 */
export function requiredViolations(o: unknown, schema: JsonSchema, rulesInCode = false): SchemaViolation[] {
  const missing = missingRequired(o, schema, '');
  if (missing.length === 0 || !(rulesInCode || hasRules(schema))) return missing;
  return [
    ...missing,
    {
      field: '<nil>',
      reason: 'FieldValueInvalid',
      message:
        'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    },
  ];
}

function missingRequired(value: unknown, schema: JsonSchema | undefined, path: string): SchemaViolation[] {
  if (!schema) return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => missingRequired(v, schema.items, `${path}[${i}]`));
  if (!isObject(value)) return [];
  const at = (key: string): string => (path ? `${path}.${key}` : key);
  const out: SchemaViolation[] = (schema.required ?? [])
    .filter((key) => value[key] === undefined)
    .map((key) => ({ field: at(key), reason: 'FieldValueRequired', message: 'Required value' }));
  for (const [key, v] of Object.entries(value)) {
    const declared =
      schema.properties?.[key] ?? (isObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
    out.push(...missingRequired(v, declared, at(key)));
  }
  return out;
}

function hasRules(schema: JsonSchema | undefined): boolean {
  if (!schema) return false;
  if (schema['x-kubernetes-validations']?.length) return true;
  const children = [
    ...Object.values(schema.properties ?? {}),
    schema.items,
    isObject(schema.additionalProperties) ? schema.additionalProperties : undefined,
  ];
  return children.some((c) => hasRules(c as JsonSchema | undefined));
}
