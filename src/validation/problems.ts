// Problems found in input — a file of a graph-data tree, a request body, a setting — each naming
// where it is (file) and what (field), and the TypeBox check that reports them field by field.
import type { TSchema } from '#typebox';
import { TypeCompiler, type TypeCheck } from '#typebox/compiler';

export interface Problem {
  file: string;
  field: string;
  message: string;
}

export const formatProblem = (p: Problem): string => `${p.file}: ${p.field}: ${p.message}`;

const compiled = new Map<TSchema, TypeCheck<TSchema>>();
function checker<T extends TSchema>(schema: T): TypeCheck<T> {
  let c = compiled.get(schema);
  if (!c) compiled.set(schema, (c = TypeCompiler.Compile(schema)));
  return c as TypeCheck<T>;
}

/** Schema errors as problems, one per field. */
export function schemaProblems(schema: TSchema, value: unknown, file: string, prefix = ''): Problem[] {
  const c = checker(schema);
  if (c.Check(value)) return [];
  const seen = new Set<string>();
  const out: Problem[] = [];
  for (const e of c.Errors(value)) {
    const field = pointerToField(prefix + e.path) || '(document)';
    if (seen.has(field)) continue;
    seen.add(field);
    out.push({ file, field, message: e.message });
  }
  return out;
}

const pointerToField = (pointer: string): string =>
  pointer
    .split('/')
    .filter((s) => s !== '')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
