// Response serialization as fastify does it by default (fast-json-stringify, through fastify's own
// compiler package), with each response schema compiled on first use (lazyCompile.ts).
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { onFirstUse } from './lazyCompile.js';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/** For fastify's schemaController.compilersFactory.buildSerializer. */
export const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  return (route) => {
    const serializer = onFirstUse(() => compile(route));
    return (data) => serializer()(data);
  };
};
