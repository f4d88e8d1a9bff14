// Field selectors as the Kubernetes API reads them from ?fieldSelector=: `field=value`, `field==value` or
// `field!=value`, comma-joined, on the fields every kind supports (metadata.name, metadata.namespace) and
// those its declaration adds (a pod's spec.nodeName, an event's involvedObject.name, …). Anything else is a
// 400, never a selector that is ignored and so matches everything.
import type { StoredObject, ResourceKind } from './kinds.js';
import { KubeError } from './kubeError.js';

export type FieldSelector = (o: StoredObject) => boolean;

const FIELDS: Record<string, (o: StoredObject) => string> = {
  'metadata.name': (o) => o.metadata.name,
  'metadata.namespace': (o) => o.metadata.namespace ?? '',
};

/** Parses a field selector; a 400 KubeError for a term that does not parse or a field that is not supported. */
export function parseFieldSelector(text: string | undefined, kind?: ResourceKind): FieldSelector {
  if (!text) return () => true;
  const fields = { ...FIELDS, ...kind?.fields };
  const tests = text.split(',').map((term): FieldSelector => {
    const m = /^\s*([^=!\s]+)\s*(==|=|!=)(.*)$/.exec(term);
    if (!m) throw new KubeError(400, 'BadRequest', `invalid selector: '${text}'; can't understand '${term}'`);
    const [, field, op, value] = m as unknown as [string, string, string, string];
    const read = Object.hasOwn(fields, field) ? fields[field] : undefined;
    if (!read)
      throw new KubeError(
        400,
        'BadRequest',
        `${JSON.stringify(field)} is not a known field selector: only ${Object.keys(fields)
          .map((f) => JSON.stringify(f))
          .join(', ')}`,
      );
    return op === '!=' ? (o) => read(o) !== value : (o) => read(o) === value;
  });
  return (o) => tests.every((t) => t(o));
}
