// Server-side printing: a list (or one object) as the meta.k8s.io/v1 Table `kubectl get` asks for with
// `Accept: application/json;as=Table;g=meta.k8s.io;v=v1`, its columns those the kind declares (kinds/*.ts)
// after the Name column every table starts with. A custom resource's columns are JSONPaths evaluated as the
// API server evaluates a CRD's additionalPrinterColumns; a built-in kind's are its printer's cells.
import { findResults } from './jsonPath.js';
import type { Cell, StoredObject, PrinterColumn, ResourceKind } from './kinds.js';
import { formatAge } from 'cincy/duration';
import { NAME_DESCRIPTION } from './kinds/printing.js';

/** What each row carries of its object: nothing, its metadata (the default), or all of it. */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

const NAME: PrinterColumn = { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION };
const CREATED_AT: PrinterColumn = {
  name: 'Created At',
  type: 'date',
  description: 'When the server created the object.',
  cell: (o) => o.metadata.creationTimestamp ?? '',
};
const AGE: PrinterColumn = {
  name: 'Age',
  type: 'date',
  description: 'When the server created the object.',
  jsonPath: '.metadata.creationTimestamp',
};

/**
 * The columns of a kind's table: Name, then its own (or the default of a custom resource or built-in kind).
 * A kind whose columns place the name themselves (a column of format `name`, as the Event printer's last
 * one) gets no Name column in front.
 */
export function columnsOf(kind: ResourceKind): PrinterColumn[] {
  if (kind.columns?.some((c) => c.format === 'name')) return kind.columns;
  return [NAME, ...(kind.columns ?? [kind.crd ? AGE : CREATED_AT])];
}

/** A custom resource's cell: the first result of the column's JSONPath, typed as the column says. */
function jsonPathCell(o: StoredObject, c: PrinterColumn, now: number): Cell {
  let results: unknown[];
  try {
    results = findResults(o, c.jsonPath!);
  } catch {
    return null;
  }
  const v = results[0];
  if (v === undefined || v === null) return null;
  switch (c.type) {
    case 'string':
      return typeof v === 'string' ? v : JSON.stringify(v);
    case 'date': {
      const t = typeof v === 'string' ? Date.parse(v) : NaN;
      return Number.isFinite(t) ? formatAge(now - t) : null;
    }
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v) ? v : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
  }
}

const cellOf = (o: StoredObject, c: PrinterColumn, now: number): Cell =>
  c === NAME ? o.metadata.name : c.cell ? c.cell(o, now) : jsonPathCell(o, c, now);

function rowObject(o: StoredObject, include: IncludeObject): object | undefined {
  if (include === 'None') return undefined;
  if (include === 'Object') return o;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
}

/**
 * The Table of `objects`, with every column's cells (the client leaves out those of a priority above 0
 * unless asked for -o wide). `headers: false` leaves out the column definitions (watch events after the first).
 */
export function toTable(
  kind: ResourceKind,
  objects: StoredObject[],
  o: { now: number; include: IncludeObject; resourceVersion: string; apiVersion?: string; headers?: boolean },
): object {
  const columns = columnsOf(kind);
  return {
    kind: 'Table',
    apiVersion: o.apiVersion ?? 'meta.k8s.io/v1',
    metadata: { resourceVersion: o.resourceVersion },
    columnDefinitions:
      o.headers === false
        ? []
        : columns.map((c) => ({
            name: c.name,
            type: c.type,
            format: c.format ?? '',
            description: c.description,
            priority: c.priority ?? 0,
          })),
    rows: objects.map((obj) => {
      const object = rowObject(obj, o.include);
      return { cells: columns.map((c) => cellOf(obj, c, o.now)), ...(object && { object }) };
    }),
  };
}

/** The form of an answer a client's Accept header asks for. */
export type Answer =
  | { as: 'json' }
  | { as: 'Table'; apiVersion: string }
  | { as: 'PartialObjectMetadata' | 'PartialObjectMetadataList'; apiVersion: string };

/**
 * Reads an Accept header the way the API server negotiates: the first media type it can serve wins;
 * `as=Table` (meta.k8s.io v1 or v1beta1) asks for a table, plain JSON (or none) for the objects.
 */
export function negotiate(accept: string | undefined): Answer {
  for (const part of (accept ?? '').split(',')) {
    const [type, ...params] = part.split(';').map((s) => s.trim());
    if (type !== 'application/json' && type !== '*/*' && type !== 'application/*') continue;
    const p = Object.fromEntries(params.map((x) => x.split('=').map((s) => s.trim()) as [string, string]));
    if (!p.as) return { as: 'json' };
    if (p.g === 'meta.k8s.io' && (p.v === 'v1' || p.v === 'v1beta1')) {
      const apiVersion = `meta.k8s.io/${p.v}`;
      if (p.as === 'Table') return { as: 'Table', apiVersion };
      if (p.as === 'PartialObjectMetadata' || p.as === 'PartialObjectMetadataList') return { as: p.as, apiVersion };
    }
  }
  return { as: 'json' };
}
