// What the mock cluster knows of a kind: its REST names and scope, its schema, and the columns `kubectl get`
// prints for it. Each kind is declared once, in the file of its API group (kinds/*.ts), with all of these.
import type { KubeObject } from 'cincy/cluster/api';
import type { Schema } from './schema.js';

/** An object as the simulated API server stores it: a Kubernetes object whose apiVersion and kind are always set. */
export interface StoredObject extends KubeObject {
  apiVersion: string;
  kind: string;
  spec?: unknown;
  status?: unknown;
}

/** A cell of a table row: what the API server puts there (null for an empty cell). */
export type Cell = string | number | boolean | null;

/** A column of the table `kubectl get` prints (a meta.k8s.io/v1 TableColumnDefinition and how to fill it). */
export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: 'name' | 'date';
  description: string;
  /** 0: always shown; more: only with `-o wide`. */
  priority?: number;
  /** A CRD's column: the JSONPath the API server evaluates on the object (its first result). */
  jsonPath?: string;
  /** A built-in kind's column: the cell its printer makes; `now` is the server's time (ms since the epoch). */
  cell?: (o: StoredObject, now: number) => Cell;
}

/** A rule of a CRD's schema (enum, x-kubernetes-validations) that a written object breaks, as the API server reports it. */
export interface RuleViolation {
  /** The field at fault, or `<nil>` for a rule on the whole object. */
  field: string;
  reason: 'FieldValueInvalid' | 'FieldValueNotSupported';
  message: string;
}

export interface ResourceKind {
  group: string; // '' for the core group
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  /** The rule its names follow, as the API server validates them (names.ts); a DNS-1123 subdomain when unset. */
  names?: 'dns1123Label' | 'dns1035Label' | 'pathSegment';
  shortNames?: string[];
  /** It has the status subresource. */
  status?: boolean;
  /** It keeps metadata.generation, moved by a change of its spec (workloads and custom resources do; a Node does not). */
  generation?: boolean;
  /** OpenShift serves it through a CustomResourceDefinition (the mock lists one for it). */
  crd?: boolean;
  /**
   * An add-on operator's API (the Lifecycle Agent's, OADP's…): served — in discovery, the OpenAPI documents
   * and the REST paths — only while the state holds its CRD, as a real cluster serves it only once the
   * operator is installed. Implies `crd`.
   */
  optional?: boolean;
  /**
   * The rules its CRD's schema adds (enums, CEL validations): those a write of `next` over `old` (undefined
   * for a create) breaks; the write is then refused with 422 Invalid, and nothing is changed.
   */
  rules?: (next: StoredObject, old: StoredObject | undefined) => RuleViolation[];
  /** The verbs it supports; all of create, delete, get, list, patch, update, watch when unset. */
  verbs?: string[];
  /** Its schema's definition name in the OpenAPI documents. */
  definition: string;
  /** Its top-level fields besides apiVersion, kind and metadata, and its description. */
  schema: Schema;
  /**
   * The columns `kubectl get` prints, the Name column first being implied. Unset: a custom resource's
   * default (Age), or a built-in kind's (Created At).
   */
  columns?: PrinterColumn[];
  /** Field selectors it supports besides metadata.name and metadata.namespace. */
  fields?: Record<string, (o: StoredObject) => string>;
  categories?: string[];
}
