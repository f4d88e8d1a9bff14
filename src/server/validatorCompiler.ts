// Request validation: bodies are checked exactly as sent (no type coercion, unknown keys refused,
// never silently dropped), while query strings and path parameters, which are text by nature, are
// coerced to the types their schemas declare.
import type { FastifySchemaCompiler } from 'fastify';
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';

function ajv(options: Options): Ajv {
  const instance = new Ajv({ allErrors: false, useDefaults: true, removeAdditional: false, strict: false, ...options });
  addFormats.default(instance);
  return instance;
}

const strict = ajv({ coerceTypes: false });
const coercing = ajv({ coerceTypes: 'array' });

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strict : coercing).compile(schema) as ReturnType<FastifySchemaCompiler<object>>;
