// What a graph request is answered with: the protocol's parameter rules, content negotiation, the
// representation's headers (Content-Type, ETag, Cache-Control, Vary, Content-Encoding), 200 or 304,
// and the bytes. The one place that decides it: the fastify route (routes/graph.ts) and the fast path
// (graphFastPath.ts) both ask GraphAnswers and write what it says.
import type { IncomingHttpHeaders } from 'node:http';
import Negotiator from 'negotiator';
import { ApiError } from '../errors.js';
import { ARCH_PATTERN, CHANNEL_PATTERN, MEDIA_TYPES } from '../schemas/cincinnati.js';
import type { GraphService } from '../app/graphService.js';
import type { EncodedView, Encoding } from '../app/encodedView.js';
import type { GraphSnapshot } from '../app/snapshot.js';

export const GRAPH_PATHS = ['/graph', '/v1/graph', '/api/upgrades_info/graph', '/api/upgrades_info/v1/graph'] as const;

const CHANNEL_RE = new RegExp(CHANNEL_PATTERN);
const ARCH_RE = new RegExp(ARCH_PATTERN);
const ENCODINGS: Encoding[] = ['br', 'gzip', 'identity'];
const OFFERED = [...MEDIA_TYPES, ...MEDIA_TYPES.map((t) => `${t}; charset=utf-8`)];

/** The request headers a graph answer depends on (CORS, which reads Origin, is the app's). */
export type GraphRequestHeaders = Pick<IncomingHttpHeaders, 'accept' | 'accept-encoding' | 'if-none-match'>;

/** One representation of a view: a media type and an encoding, with the headers they are served with. */
export interface Representation {
  readonly etag: string;
  /** The headers of a 200, in the order they are written; `vary` is appended to what CORS put there. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** The headers of a 304: those of the 200 but Content-Encoding (no body, so nothing is encoded). */
  readonly notModifiedHeaders: ReadonlyArray<readonly [string, string]>;
  /** The bytes, compressed the first time they are asked for (a 304 does not ask). */
  body(): Buffer;
}

export interface GraphAnswer {
  status: 200 | 304;
  headers: ReadonlyArray<readonly [string, string]>;
  /** The bytes of a 200 (HEAD writes the headers only); undefined for a 304. */
  body: Buffer | undefined;
  /** What the answer was made from, so the fast path can keep what it derives from it. */
  representation: Representation;
}

/**
 * Told of every graph request answered 200 or 304, with the snapshot it was answered from: the poll
 * recorder (app/fleet/pollRecorder.ts).
 */
export interface PollObserver {
  record(id: unknown, version: unknown, channel: string, arch: string, served: GraphSnapshot): void;
}

export class GraphAnswers {
  private readonly cacheControl: string;
  /** Per view (so per snapshot: a new build makes new views), its representations by negotiation result. */
  private readonly representations = new WeakMap<EncodedView, Map<Negotiated, Representation>>();

  constructor(
    private readonly service: GraphService,
    cacheMaxAge: number,
    private readonly polls?: PollObserver,
  ) {
    this.cacheControl = `public, max-age=${cacheMaxAge}`;
  }

  /**
   * The answer to a GET or HEAD of a graph path: 200 or 304. A bad parameter (400), no acceptable
   * media type (406) and no graph yet (503) are thrown as ApiError, answered in {kind, value}.
   */
  answer(query: Record<string, unknown>, headers: GraphRequestHeaders): GraphAnswer {
    const { channel, arch } = graphParams(query);
    const negotiated = negotiate(headers.accept, headers['accept-encoding']);
    const { media } = negotiated;
    if (!media) {
      throw new ApiError(
        'invalid_content_type',
        `no acceptable media type in Accept '${String(headers.accept).slice(0, 200)}'; served: ${MEDIA_TYPES.join(', ')}`,
      );
    }
    const served = this.service.served();
    // A cluster's id picks its variant on a channel with phased rollouts; a repeated one counts as none.
    const id = typeof query.id === 'string' && query.id !== '' ? query.id : undefined;
    const view = served.viewFor(channel, arch, id, this.service.clock.now());
    const representation = this.representation(view, negotiated, media);
    this.polls?.record(query.id, query.version, channel, arch, served);
    return noneMatch(headers['if-none-match'], representation.etag)
      ? { status: 304, headers: representation.notModifiedHeaders, body: undefined, representation }
      : { status: 200, headers: representation.headers, body: representation.body(), representation };
  }

  /** The representation of `view` that negotiation chose (one object per result, with its media type). */
  private representation(view: EncodedView, negotiated: Negotiated, media: string): Representation {
    let byKind = this.representations.get(view);
    if (!byKind) this.representations.set(view, (byKind = new Map()));
    let r = byKind.get(negotiated);
    if (!r) {
      const { encoding } = negotiated;
      const etag = `"${view.hash}-${media === MEDIA_TYPES[0] ? 'c' : 'j'}-${encoding}"`;
      const notModifiedHeaders: Array<[string, string]> = [
        ['content-type', media],
        ['etag', etag],
        ['cache-control', this.cacheControl],
        ['vary', 'Accept, Accept-Encoding'],
      ];
      const headers: Array<[string, string]> =
        encoding === 'identity' ? notModifiedHeaders : [...notModifiedHeaders, ['content-encoding', encoding]];
      r = { etag, headers, notModifiedHeaders, body: () => view.bytes(encoding) };
      byKind.set(negotiated, r);
    }
    return r;
  }
}

interface Negotiated {
  readonly media: string | undefined;
  readonly encoding: Encoding;
}
/** One object per media type and encoding, so a result can key a map. */
const RESULTS = new Map<string, Negotiated>();
const result = (media: string | undefined, encoding: Encoding): Negotiated => {
  const key = `${media}\n${encoding}`;
  let r = RESULTS.get(key);
  if (!r) RESULTS.set(key, (r = { media, encoding }));
  return r;
};
/** Results by Accept, then Accept-Encoding (undefined when absent: an empty header accepts nothing). */
const negotiated = new Map<string | undefined, Map<string | undefined, Negotiated>>();
let negotiatedPairs = 0;

/** Media type and encoding for a pair of headers; clients send the same few pairs, so answers are kept. */
function negotiate(accept: string | undefined, acceptEncoding: string | undefined): Negotiated {
  let byEncoding = negotiated.get(accept);
  let n = byEncoding?.get(acceptEncoding);
  if (!n) {
    const headers: Record<string, string> = {};
    if (accept !== undefined) headers.accept = accept;
    if (acceptEncoding !== undefined) headers['accept-encoding'] = acceptEncoding;
    const negotiator = new Negotiator({ headers });
    // Offered with and without charset=utf-8, so `application/json; charset=utf-8` matches too.
    const media = negotiator.mediaType(OFFERED)?.split(';')[0];
    n = result(media, (negotiator.encoding(ENCODINGS) ?? 'identity') as Encoding);
    // Kept for at most 1000 pairs, and not for long headers.
    if (negotiatedPairs >= 1000) {
      negotiated.clear();
      negotiatedPairs = 0;
      byEncoding = undefined;
    }
    if ((accept?.length ?? 0) + (acceptEncoding?.length ?? 0) <= 1000) {
      if (!byEncoding) negotiated.set(accept, (byEncoding = new Map()));
      byEncoding.set(acceptEncoding, n);
      negotiatedPairs += 1;
    }
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
