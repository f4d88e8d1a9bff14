// Errors raised before a request reaches a route, answered in the API's {kind, value} format like
// every other error: those of Node's HTTP parser (a request that did not arrive within its timeout,
// a URL or headers over Node's size limit, bytes that are not HTTP), written on the raw socket before
// it is closed; and those of fastify's router (a malformed percent-encoding, a path segment too long).
import { maxHeaderSize, STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorKind } from '../errors.js';

/** fastify's clientErrorHandler: Node's parser errors, before fastify sees a request. */
export function answerClientError(this: FastifyInstance, err: ConnectionError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  this.log.debug({ err: { code: err.code, message: err.message } }, 'client error');
  const [status, kind, value] = clientErrorAnswer(err);
  // Only when no answer to this connection's request has begun: bytes after one would corrupt it.
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify({ kind, value });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

function clientErrorAnswer(err: ConnectionError): [number, ErrorKind, string] {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return [408, 'request_timeout', 'the request did not arrive whole within the request timeout'];
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    // The request line alone over the limit: the URL is too long; else the headers (with the URL) are.
    const packet: unknown = err.rawPacket; // a Buffer at run time, whatever fastify's type says
    if (Buffer.isBuffer(packet) && !packet.subarray(0, err.bytesParsed).includes('\n'))
      return [414, 'invalid_request', `the URL is over the ${maxHeaderSize}-byte limit of the request head`];
    return [431, 'invalid_request', `the request headers are over ${maxHeaderSize} bytes`];
  }
  return [400, 'invalid_request', `malformed HTTP request: ${err.message.replace(/^Parse Error: /, '')}`];
}

/** fastify's frameworkErrors: the router's, in the URL of a request that Node parsed. */
export function answerFrameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const path = request.raw.url?.split('?')[0]?.slice(0, 200) ?? '';
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH')
    void reply.code(414).send({ kind: 'invalid_request', value: `a path segment is over 200 characters: ${path}` });
  else if (err.code === 'FST_ERR_BAD_URL')
    void reply.code(400).send({ kind: 'invalid_request', value: `malformed URL (percent-encoding): ${path}` });
  else void reply.code(err.statusCode ?? 500).send({ kind: 'internal_error', value: err.message });
}
