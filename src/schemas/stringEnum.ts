// One of a few strings, as a JSON Schema `enum`, for answers. A union of literals would be an `anyOf`,
// for which fast-json-stringify builds an Ajv validator at the first answer (40 ms at the first /readyz).
import { Type, type TUnsafe } from '#typebox';

export const stringEnum = <T extends string>(values: readonly T[], description?: string): TUnsafe<T> =>
  Type.Unsafe<T>({ type: 'string', enum: values, ...(description && { description }) });
