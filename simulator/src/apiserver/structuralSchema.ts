// What the API server checks of a custom resource by its CRD's structural schema, the one of the CRD stored
// now: required fields (an object lacking one is refused, 422, and its CEL rules are then not evaluated, which
// the answer also says). Pruning by the same schema is the product's (cincy/cluster/structuralSchema), which
// the agent also asks before it replaces a CRD.
import { isObject, type JsonSchema } from 'cincy/cluster/structuralSchema';

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
