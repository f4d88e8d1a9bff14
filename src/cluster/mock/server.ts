// The mock cluster's API server: the Kubernetes REST paths of a few kinds (discovery, get, list,
// create, update, merge-patch, delete, the status subresource, label and field selectors, watch),
// bearer-token authentication, and /metrics for Prometheus. Plain node:http: watch is a long chunked
// response. A write is answered once it is on disk (ClusterState.durable).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { timingSafeEqual } from 'node:crypto';
import { apiVersionOf, KINDS, type KubeObject, type ResourceKind } from './kinds.js';
import { parseFieldSelector, type FieldSelector } from './fieldSelector.js';
import { KubeError } from './kubeError.js';
import { parseLabelSelector, type LabelSelector } from './labelSelector.js';
import { type ClusterState, type WatchEvent } from './state.js';

export interface MockServerOptions {
  state: ClusterState;
  /** Bearer tokens accepted: one per client identity (the set may change while the server runs). */
  tokens: ReadonlySet<string>;
  /** Prometheus text exposition of the cluster-level series, made from the state on each scrape. */
  metrics: () => string;
  /** Serve HTTPS with this certificate and key. */
  tls?: { cert: string; key: string };
  /**
   * Looked at before each API request is handled: an error it returns is the answer instead. Tests use it
   * to make the API fail the way a real one can (a 500 now and then, a 403).
   */
  intercept?: (request: { method: string; path: string }) => KubeError | undefined;
}

/**
 * The bytes a watch may have waiting to be sent: a watcher that does not read that fast is dropped (its
 * connection closed), as the API server drops a watcher that falls behind, and its client lists and
 * watches again. Without the bound, each such watcher would hold every event in the server's memory.
 */
export const WATCH_BACKLOG_BYTES = 8 * 1024 * 1024;

const VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
const SHORT_NAMES: Record<string, string[]> = {
  clusteroperators: ['co'],
  configmaps: ['cm'],
  machineconfigpools: ['mcp'],
  namespaces: ['ns'],
  nodes: ['no'],
  serviceaccounts: ['sa'],
  services: ['svc'],
  deployments: ['deploy'],
  daemonsets: ['ds'],
  customresourcedefinitions: ['crd', 'crds'],
};
const HAS_STATUS = new Set([
  'clusterversions',
  'clusteroperators',
  'proxies',
  'nodes',
  'namespaces',
  'jobs',
  'machineconfigpools',
  'services',
  'deployments',
  'daemonsets',
  'customresourcedefinitions',
]);

export function mockClusterServer(opts: MockServerOptions): Server {
  const watches = new Set<ServerResponse>();
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res, opts, watches).catch((err: unknown) => {
      const e = err instanceof KubeError ? err : new KubeError(500, 'InternalError', (err as Error).message);
      if (!res.headersSent) send(res, e.code, e.status());
      else res.end();
    });
  };
  const server: Server = opts.tls
    ? createTlsServer({ cert: opts.tls.cert, key: opts.tls.key }, listener)
    : createServer(listener);
  // Open watches would keep close() waiting for ever.
  server.on('close', () => watches.forEach((w) => w.end()));
  const close = server.close.bind(server);
  server.close = ((cb?: (err?: Error) => void) => {
    watches.forEach((w) => w.end());
    return close(cb);
  }) as typeof server.close;
  return server;
}

function send(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const bearer = (req: IncomingMessage): string | undefined =>
  /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];

function authorized(req: IncomingMessage, tokens: ReadonlySet<string>): boolean {
  const given = bearer(req);
  if (given === undefined) return false;
  const a = Buffer.from(given);
  let match = false;
  for (const token of tokens) {
    const b = Buffer.from(token);
    if (a.length === b.length && timingSafeEqual(a, b)) match = true;
  }
  return match;
}

async function rawBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > 3 * 1024 * 1024) throw new KubeError(413, 'RequestEntityTooLarge', 'request body too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function body(req: IncomingMessage): Promise<unknown> {
  const text = await rawBody(req);
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    throw new KubeError(400, 'BadRequest', 'the request body is not JSON');
  }
}

interface Target {
  kind: ResourceKind;
  namespace: string | undefined;
  name: string | undefined;
  subresource: 'status' | undefined;
}

/** Maps a REST path to a kind, namespace, name and subresource. */
export function route(path: string): Target | undefined {
  const core = /^\/api\/v1\/(.*)$/.exec(path);
  const grouped = /^\/apis\/([^/]+)\/([^/]+)\/(.*)$/.exec(path);
  const [group, version, rest] = core ? ['', 'v1', core[1]!] : grouped ? [grouped[1]!, grouped[2]!, grouped[3]!] : [];
  if (rest === undefined) return undefined;
  // Names such as system:openshift:… arrive percent-encoded.
  let parts: string[];
  try {
    parts = rest
      .split('/')
      .filter(Boolean)
      .map((p) => decodeURIComponent(p));
  } catch (err) {
    if (!(err instanceof URIError)) throw err;
    return undefined; // malformed percent-encoding: no such resource
  }
  let namespace: string | undefined;
  if (parts[0] === 'namespaces' && parts.length >= 3) {
    namespace = parts[1];
    parts = parts.slice(2);
  }
  const kind = KINDS.find((k) => k.group === group && k.version === version && k.plural === parts[0]);
  if (!kind || parts.length > 3 || (parts[2] !== undefined && parts[2] !== 'status')) return undefined;
  if (kind.namespaced !== (namespace !== undefined) && parts.length > 1) return undefined;
  return { kind, namespace, name: parts[1], subresource: parts[2] as 'status' | undefined };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  opts: MockServerOptions,
  watches: Set<ServerResponse>,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://mock');
  const path = url.pathname.replace(/\/$/, '');
  if (['/healthz', '/livez', '/readyz'].includes(path)) {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    return;
  }
  if (path === '/metrics') {
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(opts.metrics());
    return;
  }
  if (!authorized(req, opts.tokens)) throw new KubeError(401, 'Unauthorized', 'Unauthorized');
  const injected = opts.intercept?.({ method: req.method ?? 'GET', path });
  if (injected) throw injected;
  const discovery = discoveryDoc(path);
  if (discovery) return send(res, 200, discovery);

  const t = route(path);
  if (!t)
    throw new KubeError(404, 'NotFound', `the server could not find the requested resource (${req.method} ${path})`);
  const { kind, namespace, name, subresource } = t;
  if (subresource && !HAS_STATUS.has(kind.plural))
    throw new KubeError(404, 'NotFound', `${kind.plural} has no status subresource`);
  const state = opts.state;
  const written = async (code: number, o: unknown): Promise<void> => {
    await state.durable();
    send(res, code, o);
  };
  const write = { dryRun: dryRunOf(req.method ?? '', url.searchParams) };
  switch (req.method) {
    case 'GET': {
      const watch = ['1', 'true'].includes(url.searchParams.get('watch') ?? '');
      const selector = parseLabelSelector(url.searchParams.get('labelSelector') ?? undefined);
      const fields = parseFieldSelector(url.searchParams.get('fieldSelector') ?? undefined);
      if (watch)
        return startWatch(req, res, state, watches, { kind, namespace, name, selector, fields }, url.searchParams);
      if (name) return send(res, 200, state.get(kind, namespace, name));
      const items = state.list(kind, namespace, selector, fields);
      return send(res, 200, {
        kind: `${kind.kind}List`,
        apiVersion: apiVersionOf(kind),
        metadata: { resourceVersion: state.resourceVersion },
        items,
      });
    }
    case 'POST': {
      if (name) throw new KubeError(405, 'MethodNotAllowed', 'POST goes to the collection');
      if (kind.namespaced && namespace === undefined)
        throw new KubeError(
          405,
          'MethodNotAllowed',
          `${kind.plural} are created in a namespace: POST to /…/namespaces/NAME/${kind.plural}`,
        );
      const b = (await body(req)) as KubeObject;
      // As the API server's NamespaceLifecycle admission does: nothing is created in a namespace that does not exist.
      if (namespace !== undefined && !state.hasNamespace(namespace))
        throw new KubeError(404, 'NotFound', `namespaces "${namespace}" not found`, {
          name: namespace,
          kind: 'namespaces',
        });
      // As the API server does, a kind with a status subresource starts with no status: only its controller writes it.
      if (HAS_STATUS.has(kind.plural) && b && typeof b === 'object' && kind.plural !== 'namespaces') delete b.status;
      return written(201, state.create(kind, namespace, b, undefined, write));
    }
    case 'PUT': {
      if (!name) throw new KubeError(405, 'MethodNotAllowed', 'PUT needs a name');
      return written(200, state.update(kind, namespace, name, await body(req), subresource, write));
    }
    case 'PATCH': {
      if (!name) throw new KubeError(405, 'MethodNotAllowed', 'PATCH needs a name');
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
      if (type === 'application/json-patch+json')
        throw new KubeError(
          415,
          'UnsupportedMediaType',
          'JSON patches are not supported; send application/merge-patch+json',
        );
      return written(200, state.patch(kind, namespace, name, await body(req), subresource, write));
    }
    case 'DELETE': {
      if (!name) throw new KubeError(405, 'MethodNotAllowed', 'DELETE needs a name');
      const options = await deleteOptions(req);
      const dryRun = write.dryRun || dryRunOf('DELETE', new URLSearchParams(options.dryRun.map((v) => ['dryRun', v])));
      return written(200, state.delete(kind, namespace, name, { dryRun, preconditions: options.preconditions }));
    }
    default:
      throw new KubeError(405, 'MethodNotAllowed', `${req.method} is not allowed`);
  }
}

/** The DeleteOptions a DELETE may carry in its body (kubectl sends its dry run there). */
async function deleteOptions(
  req: IncomingMessage,
): Promise<{ dryRun: string[]; preconditions?: { uid?: string; resourceVersion?: string } }> {
  const text = await rawBody(req);
  if (text.trim() === '') return { dryRun: [] };
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    throw new KubeError(400, 'BadRequest', 'the DeleteOptions in the request body are not JSON');
  }
  const options = (typeof o === 'object' && o !== null ? o : {}) as { dryRun?: unknown; preconditions?: unknown };
  const dryRun = options.dryRun ?? [];
  if (!Array.isArray(dryRun) || dryRun.some((v) => typeof v !== 'string'))
    throw new KubeError(400, 'BadRequest', 'DeleteOptions.dryRun must be a list of strings');
  const p = options.preconditions as { uid?: unknown; resourceVersion?: unknown } | null | undefined;
  const asString = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  return {
    dryRun: dryRun as string[],
    ...(p && { preconditions: { uid: asString(p.uid), resourceVersion: asString(p.resourceVersion) } }),
  };
}

const OPTIONS_KIND: Record<string, string> = {
  POST: 'CreateOptions',
  PUT: 'UpdateOptions',
  PATCH: 'PatchOptions',
  DELETE: 'DeleteOptions',
};

/**
 * Whether a write is a dry run: `?dryRun=All`, the one value the API server accepts (any other is a 422
 * on the request's options, and nothing is written).
 */
function dryRunOf(method: string, params: URLSearchParams): boolean {
  const values = params.getAll('dryRun');
  if (values.length === 0 || !(method in OPTIONS_KIND)) return false;
  if (values.every((v) => v === 'All')) return true;
  const options = OPTIONS_KIND[method] ?? 'ListOptions';
  const given = `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
  const message = `dryRun: Unsupported value: ${given}: supported values: "All"`;
  throw new KubeError(422, 'Invalid', `${options}.meta.k8s.io "" is invalid: ${message}`, {
    group: 'meta.k8s.io',
    kind: options,
    causes: [
      {
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${given}: supported values: "All"`,
        field: 'dryRun',
      },
    ],
  });
}

/**
 * An event's JSON line, made once however many watchers it goes to: the state sends one event to them
 * all in turn, so the last line made is kept (and only that one, which would otherwise stay in memory
 * as long as the event does in the state's history).
 */
let lastLine: { event: WatchEvent; line: string } | undefined;
function eventLine(event: WatchEvent): string {
  if (lastLine?.event !== event) lastLine = { event, line: `${JSON.stringify(event)}\n` };
  return lastLine.line;
}

/**
 * Streams a watch. Events wait in the response's buffer while the client reads; once more than
 * WATCH_BACKLOG_BYTES wait, the watcher is dropped (the connection destroyed, which frees them). The
 * objects a watch starts with are sent at once and may exceed that: the allowance starts above what
 * they left waiting and comes down as the client reads them.
 */
function startWatch(
  req: IncomingMessage,
  res: ServerResponse,
  state: ClusterState,
  watches: Set<ServerResponse>,
  w: {
    kind: ResourceKind;
    namespace: string | undefined;
    name: string | undefined;
    selector: LabelSelector;
    fields: FieldSelector;
  },
  params: URLSearchParams,
): void {
  res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
  res.flushHeaders(); // a watch with nothing to say yet must still answer at once
  let stop: () => void = () => {};
  const end = (): void => {
    stop();
    watches.delete(res);
    res.end();
  };
  let starting = true; // while the objects the watch starts with are written, whatever their size
  let allowance = WATCH_BACKLOG_BYTES;
  const send = (event: WatchEvent): void => {
    if (res.destroyed) return;
    if (!starting) allowance = Math.min(allowance, res.writableLength + WATCH_BACKLOG_BYTES);
    res.write(eventLine(event));
    if (!starting && res.writableLength > allowance) {
      stop();
      watches.delete(res);
      res.destroy();
    }
  };
  try {
    stop = state.watch({ ...w, send }, params.get('resourceVersion') ?? undefined);
  } catch (err) {
    const e = err instanceof KubeError ? err : new KubeError(500, 'InternalError', String(err));
    res.write(`${JSON.stringify({ type: 'ERROR', object: e.status() })}\n`);
    res.end();
    return;
  }
  starting = false;
  allowance = res.writableLength + WATCH_BACKLOG_BYTES;
  watches.add(res);
  const asked = Number(params.get('timeoutSeconds') ?? '1800');
  const timeout = Number.isFinite(asked) ? asked : 1800;
  const timer = setTimeout(end, Math.min(Math.max(timeout, 1), 3600) * 1000);
  req.on('close', () => {
    clearTimeout(timer);
    end();
  });
}

/** /api, /apis, /api/v1 and /apis/<group>/<version>: what clients use to find the kinds. */
function discoveryDoc(path: string): object | undefined {
  if (path === '/api') return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] };
  if (path === '/apis') {
    const groups = [...new Set(KINDS.filter((k) => k.group).map((k) => `${k.group}/${k.version}`))].map((gv) => {
      const [name, version] = gv.split('/') as [string, string];
      return { name, versions: [{ groupVersion: gv, version }], preferredVersion: { groupVersion: gv, version } };
    });
    return { kind: 'APIGroupList', apiVersion: 'v1', groups };
  }
  if (path === '/version')
    return { major: '1', minor: '29', gitVersion: 'v1.29.0-cincy-mock', platform: 'linux/amd64' };
  const m = /^\/api\/(v1)$/.exec(path) ?? /^\/apis\/([^/]+\/[^/]+)$/.exec(path);
  if (!m) return undefined;
  const kinds = KINDS.filter((k) => apiVersionOf(k) === m[1]);
  if (kinds.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: m[1],
    resources: kinds.flatMap((k) => [
      {
        name: k.plural,
        singularName: k.kind.toLowerCase(),
        namespaced: k.namespaced,
        kind: k.kind,
        verbs: VERBS,
        ...(SHORT_NAMES[k.plural] && { shortNames: SHORT_NAMES[k.plural] }),
      },
      ...(HAS_STATUS.has(k.plural)
        ? [
            {
              name: `${k.plural}/status`,
              singularName: '',
              namespaced: k.namespaced,
              kind: k.kind,
              verbs: ['get', 'patch', 'update'],
            },
          ]
        : []),
    ]),
  };
}
