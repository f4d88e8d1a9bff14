// What the API server's table printers share: durations written as kubectl shows ages, and the columns
// most kinds have.
import { formatAge } from 'cincy/duration';
import type { StoredObject, PrinterColumn } from './types.js';

/** The age of a timestamp at `now`; `<unknown>` without one, as the printers write it. */
export function since(timestamp: string | undefined, now: number): string {
  const t = timestamp ? Date.parse(timestamp) : NaN;
  return Number.isFinite(t) ? formatAge(now - t) : '<unknown>';
}

export const NAME_DESCRIPTION =
  'Name must be unique within a namespace. It is required when creating resources and cannot be changed.';
export const AGE_DESCRIPTION = 'When the server created the object, as a time since then.';

/** The Age column of a built-in kind. */
export const ageColumn: PrinterColumn = {
  name: 'Age',
  type: 'string',
  description: AGE_DESCRIPTION,
  cell: (o, now) => since(o.metadata.creationTimestamp, now),
};

/** A custom resource's column, as an additionalPrinterColumn of its CRD. */
export const crdColumn = (
  name: string,
  type: PrinterColumn['type'],
  jsonPath: string,
  description = '',
  priority = 0,
): PrinterColumn => ({ name, type, jsonPath, description, ...(priority && { priority }) });

/** The JSONPath of a condition's field, as OpenShift's printer columns name them. */
export const conditionPath = (type: string, field: 'status' | 'lastTransitionTime' | 'message'): string =>
  `.status.conditions[?(@.type=="${type}")].${field}`;

/** `<none>` for an empty text, as the printers show one. */
export const orNone = (v: string | undefined): string => (v ? v : '<none>');

export const specOf = <T>(o: StoredObject): T => (o.spec ?? {}) as T;
export const statusOf = <T>(o: StoredObject): T => (o.status ?? {}) as T;
