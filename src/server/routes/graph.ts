// GET/HEAD /graph and its aliases: parameter rules, content negotiation, ETag, compression.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { IncomingHttpHeaders } from 'node:http';
import Negotiator from 'negotiator';
import { ApiError } from '../../errors.js';
import {
  ARCH_PATTERN,
  CHANNEL_PATTERN,
  ErrorSchema,
  GraphDocumentSchema,
  GraphQuerySchema,
  MEDIA_TYPES,
} from '../../schemas/cincinnati.js';
import type { GraphService } from '../../app/graphService.js';
import type { Encoding } from '../../app/snapshot.js';

const GRAPH_PATHS = ['/graph', '/v1/graph', '/api/upgrades_info/graph', '/api/upgrades_info/v1/graph'] as const;
const CHANNEL_RE = new RegExp(CHANNEL_PATTERN);
const ARCH_RE = new RegExp(ARCH_PATTERN);
const ENCODINGS: Encoding[] = ['br', 'gzip', 'identity'];
const OFFERED = [...MEDIA_TYPES, ...MEDIA_TYPES.map((t) => `${t}; charset=utf-8`)];

export interface GraphRouteOptions {
  service: GraphService;
  cacheMaxAge: number;
}

export async function graphRoutes(fastify: FastifyInstance, opts: GraphRouteOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const cacheControl = `public, max-age=${opts.cacheMaxAge}`;
  for (const url of GRAPH_PATHS) {
    app.get(url, {
      // The schema documents the route; graphParams checks the query, with the exact Cincinnati bodies.
      validatorCompiler: () => () => true,
      schema: {
        summary: 'Update graph of a channel',
        description: 'The Cincinnati graph of one channel and architecture, as OpenShift clusters read it.',
        tags: ['graph'],
        querystring: GraphQuerySchema,
        produces: [...MEDIA_TYPES],
        response: {
          200: GraphDocumentSchema,
          304: { type: 'null', description: 'Not modified' },
          400: ErrorSchema,
          406: ErrorSchema,
          503: ErrorSchema,
        },
      },
      handler: (request, reply) => serveGraph(request.query, request.headers, reply, opts.service, cacheControl),
    });
  }
}

/** The query is checked here, not by the schema: clients get the protocol's exact error bodies. */
function serveGraph(
  query: Record<string, unknown>,
  headers: IncomingHttpHeaders,
  reply: FastifyReply,
  service: GraphService,
  cacheControl: string,
): FastifyReply {
  const { channel, arch } = graphParams(query);
  const { media, encoding } = negotiate(headers.accept, headers['accept-encoding']);
  if (!media) {
    throw new ApiError(
      'invalid_content_type',
      `no acceptable media type in Accept '${String(headers.accept).slice(0, 200)}'; served: ${MEDIA_TYPES.join(', ')}`,
    );
  }
  const snapshot = service.served();
  const view = snapshot.view(channel, arch);
  const etag = `"${view.hash}-${media === MEDIA_TYPES[0] ? 'c' : 'j'}-${encoding}"`;

  reply.header('content-type', media);
  reply.header('etag', etag);
  reply.header('cache-control', cacheControl);
  addVary(reply, 'Accept, Accept-Encoding');
  if (noneMatch(headers['if-none-match'], etag)) return reply.code(304).send();
  if (encoding !== 'identity') reply.header('content-encoding', encoding);
  return reply.send(view.bytes(encoding));
}

interface Negotiated {
  media: string | undefined;
  encoding: Encoding;
}
const negotiated = new Map<string, Negotiated>();

/** Media type and encoding for a pair of headers; clients send the same few pairs, so answers are kept. */
function negotiate(accept: string | undefined, acceptEncoding: string | undefined): Negotiated {
  // An absent header and an empty one mean different things (an empty Accept accepts nothing).
  const key = `${accept ?? '\u0000'}\n${acceptEncoding ?? '\u0000'}`;
  let n = negotiated.get(key);
  if (!n) {
    const headers: Record<string, string> = {};
    if (accept !== undefined) headers.accept = accept;
    if (acceptEncoding !== undefined) headers['accept-encoding'] = acceptEncoding;
    const negotiator = new Negotiator({ headers });
    // Offered with and without charset=utf-8, so `application/json; charset=utf-8` matches too.
    const media = negotiator.mediaType(OFFERED)?.split(';')[0];
    n = { media, encoding: (negotiator.encoding(ENCODINGS) ?? 'identity') as Encoding };
    if (negotiated.size >= 1000 || key.length > 1000) negotiated.clear();
    negotiated.set(key, n);
  }
  return n;
}

/** The protocol's parameter rules with its exact messages; unknown parameters are ignored. */
function graphParams(query: Record<string, unknown>): { channel: string; arch: string } {
  const missing = ['channel'].filter((k) => query[k] === undefined || query[k] === '');
  if (missing.length)
    throw new ApiError('missing_params', `mandatory client parameters missing: ${missing.sort().join(', ')}`);
  const channel = single(query, 'channel')!;
  const arch = single(query, 'arch') ?? 'amd64';
  if (!CHANNEL_RE.test(channel))
    throw new ApiError(
      'invalid_params',
      `invalid client parameters: channel '${clip(channel)}' does not match regex '${CHANNEL_PATTERN}'`,
    );
  if (!ARCH_RE.test(arch))
    throw new ApiError(
      'invalid_params',
      `invalid client parameters: arch '${clip(arch)}' does not match regex '${ARCH_PATTERN}'`,
    );
  return { channel, arch };
}

function single(query: Record<string, unknown>, key: string): string | undefined {
  const v = query[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string')
    throw new ApiError('invalid_params', `invalid client parameters: ${key} given more than once`);
  return v;
}

const clip = (s: string): string => (s.length > 100 ? `${s.slice(0, 100)}…` : s);

/** If-None-Match against one ETag: a list, weak tags and `*` included. */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/** Appends to Vary (CORS has already put Origin there). */
function addVary(reply: FastifyReply, value: string): void {
  const current = reply.getHeader('vary');
  reply.header('vary', current ? `${String(current)}, ${value}` : value);
}
