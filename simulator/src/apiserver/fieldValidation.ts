// Server-side field validation (?fieldValidation=Strict|Warn|Ignore), as kubectl asks for it once the
// OpenAPI document says the server supports it: fields the kind's schema does not declare are an error
// (Strict, a 400 naming each), a warning (Warn, the default), or let be (Ignore). Parts of a schema that
// keep unknown fields (x-kubernetes-preserve-unknown-fields) accept anything.
import { objectSchema } from './kinds.js';
import type { ResourceKind } from './kinds/types.js';
import { resolve, type Schema } from './kinds/schema.js';
import { KubeError } from './kubeError.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** The directive of a request; a 400 for one that is not Strict, Warn or Ignore. */
export function fieldValidationOf(params: URLSearchParams): FieldValidation {
  const v = params.get('fieldValidation') ?? 'Warn';
  if (v === 'Strict' || v === 'Warn' || v === 'Ignore') return v;
  throw new KubeError(
    400,
    'BadRequest',
    `fieldValidation must be one of "Ignore", "Warn", or "Strict", not ${JSON.stringify(v)}`,
  );
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The paths of the fields of `value` that `schema` does not declare (spec.foo, spec.containers[0].bar). */
export function unknownFields(value: unknown, schema: Schema | undefined, path = ''): string[] {
  const s = resolve(schema);
  if (!s || s.intOrString) return [];
  const out: string[] = [];
  if (Array.isArray(value)) {
    if (s.items) value.forEach((v, i) => out.push(...unknownFields(v, s.items, `${path}[${i}]`)));
    return out;
  }
  if (!isObject(value)) return out;
  const at = (key: string): string => (path ? `${path}.${key}` : key);
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue; // not there once written as JSON
    const declared = s.properties && Object.hasOwn(s.properties, key) ? s.properties[key] : undefined;
    if (declared) out.push(...unknownFields(v, declared, at(key)));
    else if (s.additionalProperties) out.push(...unknownFields(v, s.additionalProperties, at(key)));
    else if (!s.preserveUnknown && s.properties) out.push(at(key));
  }
  return out;
}

/**
 * Checks `body` (an object of `kind`) as `directive` says; returns the warnings to send (Warn), throws the
 * API server's 400 for unknown fields (Strict).
 */
export function validateFields(kind: ResourceKind, body: unknown, directive: FieldValidation): string[] {
  if (directive === 'Ignore') return [];
  const unknown = unknownFields(body, objectSchema(kind)).map((f) => `unknown field ${JSON.stringify(f)}`);
  if (unknown.length === 0) return [];
  if (directive === 'Warn') return unknown;
  throw new KubeError(
    400,
    'BadRequest',
    `${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: strict decoding error: ${unknown.join(', ')}`,
  );
}
