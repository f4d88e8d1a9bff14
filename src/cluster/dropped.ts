// What an API server dropped of a write: the fields of the object sent that the object it stored lacks. A
// CRD's structural schema prunes every field it does not declare, silently (the write answers 200), so a
// writer that cares whether its fields arrived compares. Fields the server added (defaults, metadata) and
// values it changed are not drops; only a path present in what was sent and absent from what was stored is.

/** The dotted paths (`status.history[0].acceptedRisks`) present in `sent` and missing from `stored`. */
export function droppedFields(sent: unknown, stored: unknown, path = ''): string[] {
  if (Array.isArray(sent)) {
    if (!Array.isArray(stored)) return sent.length ? [path] : [];
    return sent.flatMap((item, i) => (i < stored.length ? droppedFields(item, stored[i], `${path}[${i}]`) : []));
  }
  if (!isRecord(sent)) return [];
  if (!isRecord(stored)) return Object.keys(sent).length ? [path] : [];
  return Object.entries(sent).flatMap(([key, value]) => {
    if (value === undefined) return [];
    const at = path ? `${path}.${key}` : key;
    return key in stored ? droppedFields(value, stored[key], at) : [at];
  });
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A write the API server took but stored without some of its fields. */
export class DroppedFieldsError extends Error {
  constructor(
    readonly what: string,
    readonly fields: string[],
  ) {
    const shown = fields.slice(0, 5).join(', ') + (fields.length > 5 ? ` and ${fields.length - 5} more` : '');
    super(
      `the API server stored ${what} without ${shown}: its CustomResourceDefinition's schema does not declare them`,
    );
  }
}
