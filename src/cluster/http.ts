// The ClusterApi of a real API server, over HTTPS as a kubeconfig describes it: the server, its CA, the
// client certificate or token (client-node's KubeConfig reads the file and runs exec plugins). Requests and
// answers are JSON as they are, so a CRD's `x-kubernetes-*` keys and every other field reach the server
// whole. Every write names the field manager given, never a library's default.
import { STATUS_CODES } from 'node:http';
import type { RequestOptions } from 'node:https';
import type { KubeConfig } from '#kubernetes-client';
import { Agent, request, type Dispatcher } from 'undici';
import {
  apiVersionOf,
  ClusterApiError,
  collectionPath,
  objectPath,
  type ClusterApi,
  type KubeObject,
  type ListOptions,
  type ObjectKey,
  type ObjectList,
  type Patch,
  type Resource,
  type StatusDetails,
  type WatchEvent,
  type WatchOptions,
  type WritableObject,
} from './api.js';

export interface HttpClusterApiOptions {
  /** Written as `fieldManager` on every write: who owns the fields it sets. */
  fieldManager: string;
  userAgent: string;
  /** Seconds a request (not a watch) may take from start to its last byte. */
  timeoutSeconds?: number;
}

const PATCH_CONTENT_TYPES: Record<Patch['type'], string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
};

/** How long the server keeps a watch open before ending it (the caller starts another), as client-go spreads it. */
const WATCH_SECONDS = { min: 300, spread: 300 };

interface Discovered {
  resources: Array<{ name: string; kind: string; namespaced: boolean }>;
}

export class HttpClusterApi implements ClusterApi {
  private readonly server: string;
  private dispatcher: Promise<Dispatcher> | undefined;
  private readonly discovered = new Map<string, Promise<Discovered>>();
  private readonly timeoutMs: number;

  constructor(
    private readonly kc: KubeConfig,
    private readonly o: HttpClusterApiOptions,
  ) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error(`the kubeconfig has no current cluster (context "${kc.getCurrentContext()}")`);
    this.server = cluster.server.replace(/\/+$/, '');
    this.timeoutMs = (o.timeoutSeconds ?? 30) * 1000;
  }

  get<T = KubeObject>(r: Resource, key: ObjectKey): Promise<T> {
    return this.call('GET', objectPath(r, key));
  }

  list<T = KubeObject>(r: Resource, o: ListOptions = {}): Promise<ObjectList<T>> {
    return this.call('GET', collectionPath(r, o.namespace), selectors(o));
  }

  create<T extends WritableObject>(r: Resource, body: T): Promise<T> {
    return this.call('POST', collectionPath(r, body.metadata.namespace), this.manager(), body);
  }

  replace<T extends WritableObject>(r: Resource, body: T): Promise<T> {
    return this.call('PUT', objectPath(r, keyOf(body)), this.manager(), body);
  }

  replaceStatus<T extends WritableObject>(r: Resource, body: T): Promise<T> {
    return this.call('PUT', `${objectPath(r, keyOf(body))}/status`, this.manager(), body);
  }

  patch<T = KubeObject>(r: Resource, key: ObjectKey, patch: Patch): Promise<T> {
    const query = { ...this.manager(), ...(patch.type === 'apply' && patch.force && { force: 'true' }) };
    return this.call('PATCH', objectPath(r, key), query, patch.body, PATCH_CONTENT_TYPES[patch.type]);
  }

  async delete(r: Resource, key: ObjectKey): Promise<void> {
    await this.call('DELETE', objectPath(r, key));
  }

  async watch<T = KubeObject>(
    r: Resource,
    o: WatchOptions,
    onEvent: (e: WatchEvent<T>) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const seconds = WATCH_SECONDS.min + Math.floor(Math.random() * WATCH_SECONDS.spread);
    const query = {
      ...selectors(o),
      watch: '1',
      allowWatchBookmarks: 'true',
      timeoutSeconds: String(seconds),
      ...(o.resourceVersion && { resourceVersion: o.resourceVersion }),
    };
    let res: Dispatcher.ResponseData;
    try {
      res = await this.send('GET', collectionPath(r, o.namespace), query, undefined, undefined, {
        signal,
        bodyTimeout: (seconds + 30) * 1000,
      });
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    }
    if (res.statusCode >= 400) throw errorOf(res.statusCode, await res.body.text(), collectionPath(r, o.namespace));
    let pending = '';
    try {
      for await (const chunk of res.body) {
        pending += (chunk as Buffer).toString('utf8');
        let end: number;
        while ((end = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, end).trim();
          pending = pending.slice(end + 1);
          if (line) onEvent(JSON.parse(line) as WatchEvent<T>);
        }
      }
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    }
  }

  async resourceFor(apiVersion: string, kind: string): Promise<Resource> {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
    const find = async (fresh: boolean): Promise<Resource | undefined> => {
      const list = await this.discover(group!, version!, fresh);
      const found = list.resources.find((x) => x.kind === kind && !x.name.includes('/'));
      return found && { group: group!, version: version!, resource: found.name, namespaced: found.namespaced };
    };
    // A kind not known yet may have been served since (a CRD just created): ask once more before saying no.
    const found = (await find(false).catch(() => undefined)) ?? (await find(true));
    if (found) return found;
    throw new ClusterApiError(404, 'NotFound', `the server does not serve kind "${kind}" in version "${apiVersion}"`);
  }

  async serverTime(): Promise<number> {
    const res = await this.send('GET', '/version', {}, undefined, undefined, {
      signal: AbortSignal.timeout(this.timeoutMs),
      bodyTimeout: this.timeoutMs,
    });
    await res.body.dump();
    const date = Date.parse(String(res.headers.date ?? ''));
    return Number.isFinite(date) ? date : Date.now();
  }

  private discover(group: string, version: string, fresh: boolean): Promise<Discovered> {
    const key = apiVersionOf({ group, version });
    let known = this.discovered.get(key);
    if (!known || fresh) {
      known = this.call<Discovered>('GET', group ? `/apis/${group}/${version}` : `/api/${version}`);
      this.discovered.set(key, known);
      known.catch(() => this.discovered.delete(key));
    }
    return known;
  }

  private manager(): Record<string, string> {
    return { fieldManager: this.o.fieldManager };
  }

  private async call<T>(
    method: string,
    path: string,
    query: Record<string, string> = {},
    body?: unknown,
    contentType = 'application/json',
  ): Promise<T> {
    const res = await this.send(method, path, query, body, contentType, {
      signal: AbortSignal.timeout(this.timeoutMs),
      bodyTimeout: this.timeoutMs,
    });
    const text = await res.body.text();
    if (res.statusCode >= 400) throw errorOf(res.statusCode, text, path);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  private async send(
    method: string,
    path: string,
    query: Record<string, string>,
    body: unknown,
    contentType: string | undefined,
    limits: { signal: AbortSignal; bodyTimeout: number },
  ): Promise<Dispatcher.ResponseData> {
    const auth: RequestOptions = {};
    await this.kc.applyToHTTPSOptions(auth);
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.o.userAgent };
    for (const [name, value] of Object.entries(auth.headers ?? {}))
      if (value !== undefined) headers[name.toLowerCase()] = String(value);
    if (auth.auth) headers.authorization = `Basic ${Buffer.from(auth.auth).toString('base64')}`;
    if (body !== undefined && contentType) headers['content-type'] = contentType;
    const search = new URLSearchParams(query).toString();
    return request(`${this.server}${path}${search ? `?${search}` : ''}`, {
      method: method as Dispatcher.HttpMethod,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: await (this.dispatcher ??= this.makeDispatcher(auth)),
      signal: limits.signal,
      headersTimeout: this.timeoutMs,
      bodyTimeout: limits.bodyTimeout,
    });
  }

  /** One connection pool for the server, with the kubeconfig's trust and client certificate. */
  private async makeDispatcher(tls: RequestOptions): Promise<Dispatcher> {
    return new Agent({
      connect: {
        ca: tls.ca,
        cert: tls.cert,
        key: tls.key,
        ...(tls.rejectUnauthorized !== undefined && { rejectUnauthorized: tls.rejectUnauthorized }),
      },
    });
  }
}

const withPath = (message: string, path: string): string => (message ? `${message}: ${path}` : path);

/** Where a written object is: a replace names it. */
function keyOf(body: WritableObject): ObjectKey {
  if (!body.metadata.name) throw new Error('an object to replace needs metadata.name');
  return { name: body.metadata.name, namespace: body.metadata.namespace };
}

/** The label and field selectors of a list or watch, as query parameters. */
function selectors(o: ListOptions): Record<string, string> {
  return {
    ...(o.labelSelector && { labelSelector: o.labelSelector }),
    ...(o.fieldSelector && { fieldSelector: o.fieldSelector }),
  };
}

/**
 * The error of an answer: the Status object's reason and message when it sent one, else the HTTP status
 * alone. A Status that names no object (the 404 of a resource the server does not serve says only "the
 * server could not find the requested resource") gets the path asked, so the message names what is missing.
 */
function errorOf(status: number, text: string, path: string): ClusterApiError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const s = parsed as { kind?: string; reason?: string; message?: string; details?: StatusDetails } | undefined;
  if (s?.kind === 'Status') {
    const message = typeof s.message === 'string' ? s.message : '';
    const named = s.details?.name || s.details?.kind;
    return new ClusterApiError(status, s.reason ?? '', named ? message : withPath(message, path), s.details);
  }
  return new ClusterApiError(status, STATUS_CODES[status]?.replace(/ /g, '') ?? '', withPath('', path));
}
