// The graph fast path: a GET or HEAD of a graph path that the fastify route would answer 200 or 304
// is answered here, before fastify's routing, hooks and reply, with the answer GraphAnswers decides
// for the route too, written as fastify writes it. Cached views are most of what a Cincinnati server
// answers (clusters poll), and this way answering one costs little more than writing its bytes.
//
// It answers only what it can answer exactly; anything else goes to fastify untouched: another path
// or method, a trailing slash, a percent-encoded query, a repeated channel or arch, an Origin (CORS
// headers are the cors plugin's), a request with a body (plugins/largeBodies.ts decides whether its
// connection is kept), every error (400, 406, 503), and every request once the server is closing
// (fastify answers 503; plugins/fastPath.ts turns the fast path off).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { GRAPH_PATHS, type GraphAnswer, type GraphAnswers, type Representation } from './graphAnswer.js';
import type { RequestCount, RequestMetrics, RouteRequests } from './requestMetrics.js';

/** A graph path, with the metric counters of its answers (the route label is the path, as fastify's). */
interface GraphRoute {
  requests: RouteRequests;
  get200: RequestCount;
  get304: RequestCount;
  head200: RequestCount;
  head304: RequestCount;
}

/** The headers of one representation as written on the wire, as flat [name, value, …] lists. */
interface WireHeaders {
  get200: string[];
  head200: string[];
  get304: string[];
  head304: string[];
}

export interface FastPathOptions {
  answers: GraphAnswers;
  metrics: RequestMetrics;
  /** What the app's CORS handling puts in Vary of every answer to a request without Origin. */
  corsVary: string;
}

export class GraphFastPath {
  /** Off once the server starts closing: fastify then answers 503 to whatever still arrives. */
  enabled = true;
  private readonly routes = new Map<string, GraphRoute>();
  private readonly wire = new WeakMap<Representation, WireHeaders>();

  constructor(private readonly opts: FastPathOptions) {
    for (const path of GRAPH_PATHS) {
      const requests = opts.metrics.route(path);
      this.routes.set(path, {
        requests,
        get200: requests.count('GET', 200),
        get304: requests.count('GET', 304),
        head200: requests.count('HEAD', 200),
        head304: requests.count('HEAD', 304),
      });
    }
  }

  /** Answers the request and returns true, or returns false having touched nothing. */
  answer(req: IncomingMessage, res: ServerResponse): boolean {
    const started = performance.now();
    const method = req.method;
    const head = method === 'HEAD';
    if ((method !== 'GET' && !head) || !this.enabled) return false;
    const url = req.url!;
    const q = url.indexOf('?');
    const route = this.routes.get(q < 0 ? url : url.slice(0, q));
    if (!route) return false;
    const query = q < 0 ? {} : plainQuery(url, q + 1);
    if (!query) return false;
    const { headers } = req;
    // A cross-origin request gets the cors plugin's headers from fastify, and one with a body its
    // decision on the connection (a large body unread closes it).
    if (headers.origin !== undefined || headers['transfer-encoding'] !== undefined) return false;
    if (headers['content-length'] !== undefined && headers['content-length'] !== '0') return false;
    let answer: GraphAnswer;
    try {
      // req.headers is what fastify's request.headers is: repeated headers joined the same way.
      answer = this.opts.answers.answer(query, headers);
    } catch {
      return false; // the route answers it, in {kind, value}
    }
    const wire = this.wireHeaders(answer.representation);
    if (answer.status === 200) {
      res.writeHead(200, head ? wire.head200 : wire.get200);
      if (head) res.end();
      else res.end(answer.body);
      (head ? route.head200 : route.get200).n += 1;
    } else {
      res.writeHead(304, head ? wire.head304 : wire.get304);
      res.end();
      (head ? route.head304 : route.get304).n += 1;
    }
    route.requests.observe((performance.now() - started) / 1000);
    return true;
  }

  /**
   * What fastify writes for the representation: Vary first (the cors hook set it before the route
   * appended to it), the route's headers in order, then Content-Length as fastify adds it: the body's
   * length on a 200 (HEAD too), none on a GET 304, and 0 on a HEAD 304 (fastify's HEAD route sets it
   * for an empty payload).
   */
  private wireHeaders(r: Representation): WireHeaders {
    let w = this.wire.get(r);
    if (!w) {
      const flat = (headers: ReadonlyArray<readonly [string, string]>): string[] => {
        const vary = headers.find(([name]) => name === 'vary');
        const out = ['vary', vary ? `${this.opts.corsVary}, ${vary[1]}` : this.opts.corsVary];
        for (const [name, value] of headers) if (name !== 'vary') out.push(name, value);
        return out;
      };
      const length = String(r.body().length);
      w = {
        get200: [...flat(r.headers), 'content-length', length],
        head200: [...flat(r.headers), 'content-length', length],
        get304: flat(r.notModifiedHeaders),
        head304: [...flat(r.notModifiedHeaders), 'content-length', '0'],
      };
      this.wire.set(r, w);
    }
    return w;
  }
}

/** The parameters of a graph request the answer or the poll recorder reads. */
type PlainQuery = {
  channel?: string;
  arch?: string;
  /** A list when repeated, as fastify parses it: the recorder counts it as malformed. */
  id?: string | string[];
  version?: string | string[];
};

/**
 * channel, arch, id and version from a query string whose parse cannot differ from fastify's: none
 * with a percent-encoding (a key could decode to `channel`) or a `+` (a space to fastify), each of the four with `=`, channel and
 * arch at most once (the route refuses a repeat), id and version repeated as a list; other
 * parameters are ignored, as the route ignores them. Undefined: leave it to fastify.
 */
function plainQuery(url: string, from: number): PlainQuery | undefined {
  // fastify decodes both: `%xx`, and `+` as a space (a cluster id with one would be another id here).
  if (url.includes('%', from) || url.includes('+', from)) return undefined;
  const query: PlainQuery = {};
  for (let at = from; at <= url.length;) {
    let end = url.indexOf('&', at);
    if (end < 0) end = url.length;
    const key = PARAMS_BY_FIRST.get(url.charCodeAt(at));
    if (
      key !== undefined &&
      url.startsWith(key, at) &&
      (at + key.length === end || url.charCodeAt(at + key.length) === EQUALS)
    ) {
      if (at + key.length === end) return undefined;
      const value = url.slice(at + key.length + 1, end);
      const before = query[key];
      if (before === undefined) query[key] = value;
      else if (key === 'channel' || key === 'arch') return undefined;
      // A repeat extends the list in place: a URL of thousands of `id=` costs linear time, not quadratic.
      else if (typeof before === 'string') query[key] = [before, value];
      else before.push(value);
    }
    at = end + 1;
  }
  return query;
}

/** The four parameters by their first character, which differs. */
const PARAMS_BY_FIRST = new Map<number, keyof PlainQuery>(
  (['channel', 'arch', 'id', 'version'] as const).map((k) => [k.charCodeAt(0), k]),
);

const EQUALS = '='.charCodeAt(0);
