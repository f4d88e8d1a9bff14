// How an error is answered, in the API's {kind, value} format: an ApiError as it says; the database
// unreachable, 503, or full, 507 (the request may be made again); a body refused, 413 or 415 (body.ts);
// any other 4xx, invalid_request; anything else, a 500 that is logged. A request nothing routes is
// answered from its headers, before its body is read: a 405 naming the methods when its path is served
// for others (methodNotAllowed.ts), a 404 otherwise. Errors before routing are earlyErrors.ts'.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../../errors.js';
import { StoreFull, StoreUnavailable } from '../../store/sql.js';
import { collectRouteMethods } from '../methodNotAllowed.js';
import { bodyRefusal } from './body.js';

export const errorsPlugin = fp(async (app: FastifyInstance) => {
  // Before any route is added, so that every one is collected.
  const routeMethods = collectRouteMethods(app);
  // An unknown path (or method) is answered from the headers, before its body is read: a 405 naming
  // the methods when the path is served for others, a 404 otherwise.
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.is404) return done();
    const allowed = routeMethods.allowed(request.url.split('?')[0]!);
    if (allowed.length === 0) return void reply.code(404).send(notFound(request));
    void reply
      .code(405)
      .header('allow', allowed.join(', '))
      .send({ kind: 'invalid_request', value: `${request.method} is not served here; allowed: ${allowed.join(', ')}` });
  });
  answerErrorsAsTheApi(app);
});

/** Errors and unknown paths answered in the API's format (an app of lazyApp.ts answers as the server does). */
export function answerErrorsAsTheApi(app: FastifyInstance): void {
  app.setErrorHandler(answerError);
  app.setNotFoundHandler(answerNotFound);
}

function answerNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply.code(404).send(notFound(request));
}

function answerError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // A 503 may be asked again: in a second, unless the answer says otherwise.
  if (err instanceof ApiError) {
    if (err.statusCode === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', 1);
    return reply.code(err.statusCode).send(err.body());
  }
  // The database cannot be reached (or is busy past its wait): the request may be made again.
  if (err instanceof StoreUnavailable)
    return reply.code(503).header('retry-after', 1).send({ kind: 'service_unavailable', value: err.message });
  // No room for the write (nothing of it was written): the request may be made again once there is.
  if (err instanceof StoreFull) return reply.code(507).send({ kind: 'insufficient_storage', value: err.message });
  const status = err.statusCode ?? 500;
  if (status >= 500) {
    request.log.error({ err }, 'request failed');
    return reply.code(500).send({ kind: 'internal_error', value: 'internal server error' });
  }
  const refused = bodyRefusal(err, request);
  if (refused) return reply.code(refused.status).send(refused.body);
  // Bad input to the admin and API routes is one kind, wherever it is; the Cincinnati graph routes
  // check their own parameters, with the reference implementation's kinds (graphAnswer.ts).
  return reply.code(status).send({ kind: 'invalid_request', value: validationMessage(err) });
}

/** A validation error's message, naming the key an object may not have (Ajv's own message does not). */
function validationMessage(err: FastifyError): string {
  const first = err.validation?.[0];
  const extra = first?.keyword === 'additionalProperties' && first.params.additionalProperty;
  return typeof extra === 'string' ? `${err.message}: '${extra.slice(0, 100)}'` : err.message;
}

const notFound = (request: FastifyRequest): { kind: 'does_not_exist'; value: string } => ({
  kind: 'does_not_exist',
  value: `no such path: ${request.method} ${request.url.split('?')[0]!.slice(0, 200)}`,
});
