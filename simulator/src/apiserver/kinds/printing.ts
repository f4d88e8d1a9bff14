// What the API server's table printers share: durations written as kubectl shows ages, and the columns
// most kinds have.
import type { KubeObject, PrinterColumn } from './types.js';

/** A duration as the API server writes an age: 45s, 3m20s, 5h10m, 3d4h, 2y10d (apimachinery's HumanDuration). */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${hours / 24}d` : `${Math.trunc(hours / 24)}d${hours % 24}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

/** The age of a timestamp at `now`; `<unknown>` without one, as the printers write it. */
export function since(timestamp: string | undefined, now: number): string {
  const t = timestamp ? Date.parse(timestamp) : NaN;
  return Number.isFinite(t) ? humanDuration(now - t) : '<unknown>';
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

export const specOf = <T>(o: KubeObject): T => (o.spec ?? {}) as T;
export const statusOf = <T>(o: KubeObject): T => (o.status ?? {}) as T;
