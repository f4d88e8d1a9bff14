// What the API server checks of an object before it stores it, in two steps as it does: first the JSON
// types its decoder insists on (a body that cannot be decoded is a 400 naming the field), then the rules
// of names, labels and annotations (a 422 Invalid listing each field that breaks one).
import type { StoredObject, ResourceKind } from './kinds.js';
import { KubeError, type StatusDetails } from './kubeError.js';
import { requiredViolations } from './structuralSchema.js';
import { dns1035Label, dns1123Label, dns1123Subdomain, labelValue, pathSegment, qualifiedName } from './names.js';

const NAME_RULES = { dns1123Label, dns1035Label, pathSegment, dns1123Subdomain };
const STRING_FIELDS = ['name', 'generateName', 'namespace', 'resourceVersion', 'uid'];
const STRING_MAPS = ['labels', 'annotations'];
const ANNOTATIONS_MAX_BYTES = 256 * 1024;

/** `ConfigMap`, `Deployment.apps`: how the API server names a kind in its messages. */
export const groupKind = (kind: ResourceKind): string => (kind.group ? `${kind.kind}.${kind.group}` : kind.kind);
/** `configmaps`, `deployments.apps`: how the API server names a resource in NotFound and AlreadyExists. */
export const groupResource = (kind: ResourceKind): string =>
  kind.group ? `${kind.plural}.${kind.group}` : kind.plural;

const typeOf = (v: unknown): string => (Array.isArray(v) ? 'an array' : `a ${typeof v}`);

/** A 400 for a body the API server's decoder would refuse, naming the field. */
function undecodable(kind: ResourceKind, message: string): KubeError {
  const k = kind.kind;
  return new KubeError(400, 'BadRequest', `${k} in version "${kind.version}" cannot be handled as a ${k}: ${message}`);
}

/**
 * Checks the JSON types of a body: an object whose metadata, when present, is an object with string
 * fields and maps of strings (null stands for absent, as for the decoder).
 */
export function checkDecodable(kind: ResourceKind, body: unknown): asserts body is StoredObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw undecodable(kind, `the body must be a JSON object, not ${body === null ? 'null' : typeOf(body)}`);
  const metadata = (body as { metadata?: unknown }).metadata;
  if (metadata === undefined || metadata === null) return;
  if (typeof metadata !== 'object' || Array.isArray(metadata))
    throw undecodable(kind, `metadata must be an object, not ${typeOf(metadata)}`);
  const meta = metadata as Record<string, unknown>;
  for (const field of STRING_FIELDS) {
    const v = meta[field];
    if (v !== undefined && v !== null && typeof v !== 'string')
      throw undecodable(kind, `metadata.${field} must be a string, not ${typeOf(v)}`);
  }
  for (const field of STRING_MAPS) {
    const v = meta[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'object' || Array.isArray(v))
      throw undecodable(kind, `metadata.${field} must be an object of strings, not ${typeOf(v)}`);
    for (const [key, value] of Object.entries(v))
      if (typeof value !== 'string')
        throw undecodable(kind, `metadata.${field}[${JSON.stringify(key)}] must be a string, not ${typeOf(value)}`);
  }
}

interface FieldError {
  field: string;
  reason: 'FieldValueInvalid' | 'FieldValueRequired' | 'FieldValueTooLong';
  message: string;
}

const invalid = (field: string, value: string, detail: string): FieldError => ({
  field,
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
});

/**
 * Checks the name (required, and by the kind's rule), label keys and values, and annotation keys and
 * total size; a 422 Invalid listing every field at fault. `name` is the name the object will have.
 */
export function checkMetadata(kind: ResourceKind, name: string, metadata: StoredObject['metadata'] | undefined): void {
  const errors: FieldError[] = [];
  if (name === '')
    errors.push({
      field: 'metadata.name',
      reason: 'FieldValueRequired',
      message: 'Required value: name or generateName is required',
    });
  else
    for (const e of NAME_RULES[kind.names ?? 'dns1123Subdomain'](name)) errors.push(invalid('metadata.name', name, e));
  for (const [key, value] of Object.entries(metadata?.labels ?? {})) {
    for (const e of qualifiedName(key)) errors.push(invalid('metadata.labels', key, e));
    for (const e of labelValue(value)) errors.push(invalid('metadata.labels', value, e));
  }
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(metadata?.annotations ?? {})) {
    for (const e of qualifiedName(key)) errors.push(invalid('metadata.annotations', key, e));
    annotationBytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (annotationBytes > ANNOTATIONS_MAX_BYTES)
    errors.push({
      field: 'metadata.annotations',
      reason: 'FieldValueTooLong',
      message: `Too long: must have at most ${ANNOTATIONS_MAX_BYTES} bytes`,
    });
  if (errors.length === 0) return;
  const text = errors.map((e) => `${e.field}: ${e.message}`);
  const details: StatusDetails = {
    name,
    ...(kind.group && { group: kind.group }),
    kind: kind.kind,
    causes: errors.map((e) => ({ reason: e.reason, message: e.message, field: e.field })),
  };
  throw new KubeError(
    422,
    'Invalid',
    `${groupKind(kind)} ${JSON.stringify(name)} is invalid: ${text.length === 1 ? text[0] : `[${text.join(', ')}]`}`,
    details,
  );
}

/**
 * Checks the rules of the kind's CRD schema (kinds/*.ts `rules`) on a write of `next` over `old` (undefined for
 * a create); a 422 Invalid listing each one broken, as the API server answers a CEL rule or an enum refusing it.
 */
export function checkRules(
  kind: ResourceKind,
  next: StoredObject,
  old: StoredObject | undefined,
  schema?: Parameters<typeof requiredViolations>[1],
): void {
  // Required fields first: with one missing, the API server evaluates no CEL rule.
  const required = schema ? requiredViolations(next, schema, !!kind.rules) : [];
  const broken = required.length ? required : (kind.rules?.(next, old) ?? []);
  if (broken.length === 0) return;
  const name = next.metadata.name;
  const text = broken.map((e) => `${e.field}: ${e.message}`);
  throw new KubeError(
    422,
    'Invalid',
    `${groupKind(kind)} ${JSON.stringify(name)} is invalid: ${text.length === 1 ? text[0] : `[${text.join(', ')}]`}`,
    {
      name,
      ...(kind.group && { group: kind.group }),
      kind: kind.kind,
      causes: broken.map((e) => ({ reason: e.reason, message: e.message, field: e.field })),
    },
  );
}
