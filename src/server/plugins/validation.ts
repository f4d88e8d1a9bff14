// Request validation for every route: the validator compiler of validatorCompiler.ts (bodies checked
// exactly as sent; query strings and path parameters coerced to their schemas' types; each schema
// compiled on first use), set on the root so every route plugin inherits it.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { validatorCompiler } from '../validatorCompiler.js';

export const validationPlugin = fp(async (app: FastifyInstance) => {
  app.setValidatorCompiler(validatorCompiler);
});
