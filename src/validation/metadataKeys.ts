// Metadata keys refused in release records and raw metadata, in a tree and through the API alike:
// __proto__, constructor and prototype, the names JavaScript gives every object. Such a key would not
// travel intact from the input to the served graph (an object built with {} takes `__proto__` for its
// prototype and drops it; a merge finds an inherited `constructor`), so it is refused where it comes in.
import type { Problem } from './problems.js';

const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** A problem for each reserved key of `metadata`, named `<field>.<key>`. */
export function reservedKeyProblems(metadata: Record<string, string>, file: string, field: string): Problem[] {
  return Object.keys(metadata)
    .filter((key) => RESERVED_KEYS.has(key))
    .map((key) => ({
      file,
      field: `${field}.${key}`,
      message: 'reserved: __proto__, constructor and prototype cannot be metadata keys',
    }));
}
