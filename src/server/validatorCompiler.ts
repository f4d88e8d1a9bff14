// Request validation: bodies are checked exactly as sent (no type coercion, unknown keys refused,
// never silently dropped), while query strings and path parameters, which are text by nature, are
// coerced to the types their schemas declare. Each schema is compiled on first use (lazyCompile.ts).
import type { FastifySchemaCompiler } from 'fastify';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { onFirstUse } from './lazyCompile.js';

function ajv(options: Options): Ajv {
  const instance = new Ajv({ allErrors: false, useDefaults: true, removeAdditional: false, strict: false, ...options });
  addFormats.default(instance);
  return instance;
}

const compilers = onFirstUse(() => ({ strict: ajv({ coerceTypes: false }), coercing: ajv({ coerceTypes: 'array' }) }));

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const compiled = onFirstUse(() => {
    const { strict, coercing } = compilers();
    return (httpPart === 'body' ? strict : coercing).compile(schema);
  });
  const validate = Object.assign(
    (data: unknown, context?: Parameters<ValidateFunction>[1]): boolean => {
      const check = compiled();
      const valid = check(data, context) as boolean;
      validate.errors = check.errors;
      return valid;
    },
    {
      errors: undefined as ValidateFunction['errors'],
      // fastify hands a validator that carries Ajv's schemaEnv the request as the parent of the value,
      // which Ajv needs to coerce or default the value itself (a query string), not only its fields.
      schemaEnv: true,
    },
  );
  return validate;
};
