// The mock cluster's API server: the Kubernetes REST paths of its kinds (discovery, get, list, create,
// update, patch — merge, JSON and strategic — delete, server-side dry runs and field validation, the status
// subresource, label and field selectors, watch, and tables for kubectl get), the OpenAPI documents, the
// reviews kubectl auth asks, bearer-token authentication, and /metrics for Prometheus (behind the token too). Plain node:http:
// watch is a long chunked response. A write is answered once it is on disk (ClusterState.durable).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { timingSafeEqual } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { discoveryDoc } from './discovery.js';
import { servedKinds } from './crds.js';
import { apiVersionOf, stored, verbsOf, type StoredObject, type ResourceKind } from './kinds.js';
import { parseFieldSelector, type FieldSelector } from './fieldSelector.js';
import { fieldValidationOf, validateFields } from './fieldValidation.js';
import { KubeError } from './kubeError.js';
import { parseLabelSelector, type LabelMatcher } from './labelSelector.js';
import { documentJson, openApiV2, openApiV3, openApiV3Discovery } from './openapi.js';
import { PATCH_TYPES } from './patch.js';
import { answerReview } from './reviews.js';
import { type ClusterState, type PatchType, type StateEvent } from './state.js';
import { negotiate, toTable, type Answer, type IncludeObject } from './table.js';

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
  /**
   * The cluster's time, which each answer's Date header says (clients reckon ages against it): the simulated
   * clock, which may run ahead of the wall clock. Real time unless given.
   */
  now?: () => number;
}

/**
 * The bytes a watch may have waiting to be sent: a watcher that does not read that fast is dropped (its
 * connection closed), as the API server drops a watcher that falls behind, and its client lists and
 * watches again. Without the bound, each such watcher would hold every event in the server's memory.
 */
export const WATCH_BACKLOG_BYTES = 8 * 1024 * 1024;

export function mockClusterServer(opts: MockServerOptions): Server {
  const watches = new Set<ServerResponse>();
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    if (opts.now) res.setHeader('Date', new Date(opts.now()).toUTCString());
    handle(req, res, opts, watches).catch((err: unknown) => {
      const e = err instanceof KubeError ? err : new KubeError(500, 'InternalError', (err as Error).message);
      if (!res.headersSent) send(res, e.status, e.toStatus());
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

function send(res: ServerResponse, code: number, body: unknown, warnings: string[] = []): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  // As the API server sends them: kubectl prints each as "Warning: <text>".
  if (warnings.length)
    res.setHeader(
      'warning',
      warnings.map((w) => `299 - ${JSON.stringify(w)}`),
    );
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

/** A request body: JSON, or YAML when the Content-Type says so (kubectl sends an apply patch as YAML). */
async function body(req: IncomingMessage): Promise<unknown> {
  const text = await rawBody(req);
  const type = contentType(req);
  if (type === 'application/yaml' || type === PATCH_TYPES.apply) {
    try {
      return parseYaml(text);
    } catch (err) {
      throw new KubeError(400, 'BadRequest', `the request body is not YAML: ${(err as Error).message}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    throw new KubeError(400, 'BadRequest', 'the request body is not JSON');
  }
}

const contentType = (req: IncomingMessage): string => (req.headers['content-type'] ?? '').split(';')[0]!.trim();

interface Target {
  kind: ResourceKind;
  namespace: string | undefined;
  name: string | undefined;
  subresource: 'status' | undefined;
}

/** Maps a REST path to one of the kinds served, a namespace, name and subresource. */
export function route(path: string, served: ResourceKind[]): Target | undefined {
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
  const kind = served.find((k) => k.group === group && k.version === version && k.plural === parts[0]);
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
  if (!authorized(req, opts.tokens)) throw new KubeError(401, 'Unauthorized', 'Unauthorized');
  // As on a cluster, where Prometheus scrapes with its service account's token.
  if (path === '/metrics') {
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(opts.metrics());
    return;
  }
  const injected = opts.intercept?.({ method: req.method ?? 'GET', path });
  if (injected) throw injected;
  const served = servedKinds(opts.state);
  if (path.startsWith('/openapi/')) return serveOpenApi(req, res, path, served);
  const discovery = discoveryDoc(path, served);
  if (discovery) return send(res, 200, discovery);

  const t = route(path, served);
  if (!t) throw new KubeError(404, 'NotFound', 'the server could not find the requested resource');
  const { kind, namespace, name, subresource } = t;
  if (subresource && !kind.status) throw new KubeError(404, 'NotFound', `${kind.plural} has no status subresource`);
  const method = req.method ?? 'GET';
  const verb =
    method === 'GET'
      ? ['1', 'true'].includes(url.searchParams.get('watch') ?? '')
        ? 'watch'
        : name
          ? 'get'
          : 'list'
      : ({ POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' } as Record<string, string>)[method];
  if (!verb || !verbsOf(kind).includes(verb))
    throw new KubeError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`);
  const state = opts.state;
  // Who writes: the fieldManager asked, else the client's name from its user agent, as kube-apiserver takes it.
  const writer = url.searchParams.get('fieldManager') || String(req.headers['user-agent'] ?? '').split('/')[0];
  const write = { dryRun: dryRunOf(method, url.searchParams), ...(writer && { fieldManager: writer }) };
  const written = async (code: number, o: unknown, warnings: string[] = []): Promise<void> => {
    if (!write.dryRun) await state.durable();
    send(res, code, o, warnings);
  };
  /** Checks the fields of an object being written as ?fieldValidation= says; the warnings to send. */
  const checked = (o: unknown): string[] => {
    const directive = fieldValidationOf(url.searchParams);
    // A write of the object leaves its status to the status subresource: that part is not looked at.
    const looked =
      kind.status && subresource !== 'status' && o && typeof o === 'object' ? { ...o, status: undefined } : o;
    return validateFields(kind, looked, directive);
  };
  switch (method) {
    case 'GET': {
      const answer = negotiate(req.headers.accept);
      const selector = parseLabelSelector(url.searchParams.get('labelSelector') ?? undefined);
      const fields = parseFieldSelector(url.searchParams.get('fieldSelector') ?? undefined, kind);
      const include = includeObjectOf(url.searchParams);
      if (verb === 'watch')
        return startWatch(
          req,
          res,
          state,
          watches,
          { kind, namespace, name, selector, fields },
          url.searchParams,
          (event, first) =>
            answer.as === 'Table'
              ? {
                  type: event.type,
                  object: toTable(kind, [event.object], {
                    now: state.now(),
                    include,
                    resourceVersion: event.object.metadata.resourceVersion ?? '',
                    apiVersion: answer.apiVersion,
                    headers: first,
                  }),
                }
              : undefined,
        );
      const objects = name ? [state.get(kind, namespace, name)] : state.list(kind, namespace, selector, fields);
      return send(
        res,
        200,
        present(kind, objects, !name, answer, { now: state.now(), include, rv: state.resourceVersion }),
      );
    }
    case 'POST': {
      if (name) throw new KubeError(405, 'MethodNotAllowed', 'POST goes to the collection');
      const b = await body(req);
      if (!stored(kind)) return send(res, 201, answerReview(kind, b));
      if (kind.namespaced && namespace === undefined)
        throw new KubeError(
          405,
          'MethodNotAllowed',
          `${kind.plural} are created in a namespace: POST to /…/namespaces/NAME/${kind.plural}`,
        );
      // As the API server's NamespaceLifecycle admission does: nothing is created in a namespace that does not exist.
      if (namespace !== undefined && !state.hasNamespace(namespace))
        throw new KubeError(404, 'NotFound', `namespaces "${namespace}" not found`, {
          name: namespace,
          kind: 'namespaces',
        });
      const warnings = checked(b);
      // As the API server does, a kind with a status subresource starts with no status: only its controller writes it.
      if (kind.status && b && typeof b === 'object' && kind.plural !== 'namespaces') delete (b as StoredObject).status;
      return written(201, state.create(kind, namespace, b, undefined, write), warnings);
    }
    case 'PUT': {
      if (!name) throw new KubeError(405, 'MethodNotAllowed', 'PUT needs a name');
      const b = await body(req);
      const warnings = checked(b);
      return written(200, state.update(kind, namespace, name, b, subresource, write), warnings);
    }
    case 'PATCH': {
      if (!name) throw new KubeError(405, 'MethodNotAllowed', 'PATCH needs a name');
      if (contentType(req) === PATCH_TYPES.apply) {
        const manager = url.searchParams.get('fieldManager');
        if (!manager)
          throw new KubeError(
            422,
            'Invalid',
            'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
          );
        if (namespace !== undefined && !state.hasNamespace(namespace))
          throw new KubeError(404, 'NotFound', `namespaces "${namespace}" not found`, {
            name: namespace,
            kind: 'namespaces',
          });
        const config = await body(req);
        const warnings = checked(config);
        const { object, created } = state.apply(kind, namespace, name, config, manager, write);
        return written(created ? 201 : 200, object, warnings);
      }
      const type = patchTypeOf(contentType(req), kind);
      const patched = state.patch(
        kind,
        namespace,
        name,
        await body(req),
        subresource,
        { ...write, dryRun: true },
        type,
      );
      const warnings = checked(patched);
      if (write.dryRun) return send(res, 200, patched, warnings);
      return written(200, state.update(kind, namespace, name, patched, subresource, write), warnings);
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

/** The patch type a PATCH's Content-Type names; a 415 listing those the kind takes for any other. */
function patchTypeOf(type: string, kind: ResourceKind): PatchType {
  const accepted: Array<[string, PatchType]> = [
    [PATCH_TYPES.json, 'json'],
    [PATCH_TYPES.merge, 'merge'],
    ...(kind.crd ? [] : ([[PATCH_TYPES.strategic, 'strategic']] as Array<[string, PatchType]>)),
  ];
  const found = accepted.find(([t]) => t === type);
  if (found) return found[1];
  const listed = [...accepted.map(([t]) => t), PATCH_TYPES.apply];
  throw new KubeError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${listed.join(', ')}`,
  );
}

/** ?includeObject=: what a table row carries of its object (Metadata when not said). */
function includeObjectOf(params: URLSearchParams): IncludeObject {
  const v = params.get('includeObject') ?? 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw new KubeError(400, 'BadRequest', `includeObject must be None, Metadata or Object, not ${JSON.stringify(v)}`);
}

/** Objects as the client asked for them: a list or an object, a Table, or their metadata only. */
function present(
  kind: ResourceKind,
  objects: StoredObject[],
  asList: boolean,
  answer: Answer,
  o: { now: number; include: IncludeObject; rv: string },
): object {
  if (answer.as === 'Table')
    return toTable(kind, objects, {
      now: o.now,
      include: o.include,
      resourceVersion: o.rv,
      apiVersion: answer.apiVersion,
    });
  if (answer.as === 'PartialObjectMetadata' || answer.as === 'PartialObjectMetadataList') {
    const partial = objects.map((x) => ({
      kind: 'PartialObjectMetadata',
      apiVersion: answer.apiVersion,
      metadata: x.metadata,
    }));
    if (!asList) return partial[0]!;
    return {
      kind: 'PartialObjectMetadataList',
      apiVersion: answer.apiVersion,
      metadata: { resourceVersion: o.rv },
      items: partial,
    };
  }
  if (!asList) return objects[0]!;
  return {
    kind: `${kind.kind}List`,
    apiVersion: apiVersionOf(kind),
    metadata: { resourceVersion: o.rv },
    items: objects,
  };
}

/** /openapi/v2, /openapi/v3 and /openapi/v3/<group-version>. */
function serveOpenApi(req: IncomingMessage, res: ServerResponse, path: string, served: ResourceKind[]): void {
  if (req.method !== 'GET') throw new KubeError(405, 'MethodNotAllowed', `${req.method} is not allowed`);
  if (path === '/openapi/v3') return send(res, 200, openApiV3Discovery(served));
  const gv = /^\/openapi\/v3\/(.+)$/.exec(path)?.[1];
  const doc = gv
    ? documentJson(`v3:${gv}`, served, () => openApiV3(gv, served))
    : path === '/openapi/v2'
      ? documentJson('v2', served, () => openApiV2(served))
      : undefined;
  if (!doc) throw new KubeError(404, 'NotFound', 'the server could not find the requested resource');
  send(res, 200, doc.json);
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
let lastLine: { event: StateEvent; line: string } | undefined;
function eventLine(event: StateEvent): string {
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
    selector: LabelMatcher;
    fields: FieldSelector;
  },
  params: URLSearchParams,
  /** What to send for an event instead of the event itself (a table row); `first` for the first event sent. */
  transform: (event: StateEvent, first: boolean) => object | undefined = () => undefined,
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
  let first = true;
  const send = (event: StateEvent): void => {
    if (res.destroyed) return;
    if (!starting) allowance = Math.min(allowance, res.writableLength + WATCH_BACKLOG_BYTES);
    const instead = transform(event, first);
    first = false;
    res.write(instead ? `${JSON.stringify(instead)}\n` : eventLine(event));
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
    res.write(`${JSON.stringify({ type: 'ERROR', object: e.toStatus() })}\n`);
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
