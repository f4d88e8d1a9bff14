// A client of one repository of a registry speaking the distribution (OCI) API: tags with pagination,
// manifests with their digests checked, blobs as streams, and pushes. Authentication follows the registry's
// challenge (Basic, or a Bearer token from its realm); 429, 5xx and network errors are retried with backoff.
// Every request has a deadline for its whole answer, body included, besides the wait between two chunks, and
// every read may carry the caller's signal (a scrape's own deadline). Redirects and realms are followed only
// where destinations.ts allows, errors name the URL actually requested, and no body the registry (or anyone
// else) sent is ever quoted: only the distribution error codes it names.
import { createHash } from 'node:crypto';
import { pipeline, Readable, Transform, type TransformCallback } from 'node:stream';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import { parseChallenge } from './challenge.js';
import { RegistryCredentials, type Credential } from './credentials.js';
import { DestinationPolicy } from './destinations.js';
import { MANIFEST_ACCEPT, readManifest, type RegistryManifest } from './manifest.js';
import { DIGEST, describe, TAG, type RepositoryReference } from './reference.js';
import { deadline } from '../deadline.js';
import { readBounded } from '../readBounded.js';
import { lazyModule } from '../lazyModule.js';

/** undici, loaded by the first client made (a server without a registry source never loads it). */
const undici = lazyModule<typeof Undici>('undici');

export interface RegistryClientOptions {
  credentials?: RegistryCredentials;
  /** PEM CA bundle the registry's certificate is checked against (default: the system's). */
  ca?: string;
  /** Milliseconds a request may wait for headers, or between two chunks of a body. */
  timeoutMs?: number;
  /** Milliseconds a request may take from sending to the last byte of its body (default 5 minutes). */
  requestDeadlineMs?: number;
  /** Hosts (`HOST` or `HOST:PORT`) besides the registry's that redirects may lead to and realms may get credentials. */
  allowedHosts?: readonly string[];
  /** Attempts after the first for 429, 5xx and network errors. */
  retries?: number;
  /** Milliseconds before the first retry; doubled each time (Retry-After wins when the registry sends it). */
  backoffMs?: number;
  /** Called for every request sent (metrics and tests count them). */
  onRequest?: (method: string, path: string) => void;
}

export class RegistryError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface FetchedManifest {
  /** sha256 of the bytes received (checked against the digest asked for and Docker-Content-Digest). */
  digest: string;
  bytes: Buffer;
  manifest: RegistryManifest;
}

const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** Pages of a tag list, at most: a registry that ignores `n` and sends 10 a page still lists 100,000 tags. */
const MAX_TAG_PAGES = 10_000;
export const DEFAULT_MAX_TAGS = 100_000;
const MAX_REDIRECTS = 5;
const RETRIABLE = new Set([408, 429, 500, 502, 503, 504]);
const REDIRECT = new Set([301, 302, 303, 307, 308]);

/** What a tag list held: the tags that may be asked for, and how many names broke the tag grammar. */
export interface TagList {
  tags: string[];
  /** Up to 10 of the names refused, as JSON strings cut to 80 characters (for a warning). */
  invalid: string[];
  invalidCount: number;
}

type Access = 'pull' | 'pull,push';

export class RegistryClient {
  readonly base: string;
  private readonly dispatcher: Dispatcher;
  private readonly credential: Credential | undefined;
  private readonly tokens = new Map<Access, string>();
  private readonly timeoutMs: number;
  private readonly requestDeadlineMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly policy: DestinationPolicy;

  constructor(
    readonly ref: RepositoryReference,
    private readonly options: RegistryClientOptions = {},
  ) {
    this.base = `${ref.secure ? 'https' : 'http'}://${ref.registry}`;
    this.credential = (options.credentials ?? RegistryCredentials.none()).for(ref);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.requestDeadlineMs = options.requestDeadlineMs ?? 300_000;
    this.retries = options.retries ?? 3;
    this.backoffMs = options.backoffMs ?? 250;
    this.policy = new DestinationPolicy(new URL(this.base), options.allowedHosts);
    // Redirects are followed by send() itself, each checked against the policy.
    this.dispatcher = new (undici().Agent)({
      connect: { ...(options.ca && { ca: options.ca }), lookup: this.policy.lookup },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      connections: 32,
    });
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }

  private get name(): string {
    return describe(this.ref);
  }

  /**
   * Every tag, following the `Link: <…>; rel="next"` pages (`n` per page): more than `maxTags` of them, or
   * more than 10,000 pages, fail the listing rather than grow without end. Names that break the tag grammar
   * are left out and counted (they never go into a path).
   */
  async tags(opts: { maxTags?: number; pageSize?: number; signal?: AbortSignal } = {}): Promise<TagList> {
    const maxTags = opts.maxTags ?? DEFAULT_MAX_TAGS;
    const list: TagList = { tags: [], invalid: [], invalidCount: 0 };
    const listPath = `/v2/${this.ref.repository}/tags/list`;
    let path: string | undefined = `${listPath}?n=${opts.pageSize ?? 1000}`;
    const seen = new Set<string>();
    for (let page = 0; path; page++) {
      if (page >= MAX_TAG_PAGES)
        throw new RegistryError(`${this.name}: the tag list goes on past ${MAX_TAG_PAGES} pages`);
      if (seen.has(path)) throw new RegistryError(`${this.name}: the tag list does not end (page ${page} repeats)`);
      seen.add(path);
      const res = await this.send('GET', path, { accept: 'application/json', signal: opts.signal });
      const body = await readLimited(res.body, MAX_MANIFEST_BYTES, `${this.name} tag list page ${page + 1}`);
      let doc: { tags?: unknown };
      try {
        doc = JSON.parse(body.toString('utf8')) as { tags?: unknown };
      } catch {
        throw new RegistryError(`${this.name}: tag list page ${page + 1} is not JSON`);
      }
      const tags = doc.tags ?? [];
      if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string'))
        throw new RegistryError(`${this.name}: tag list: tags: expected a list of strings`);
      for (const tag of tags as string[]) {
        if (TAG.test(tag)) list.tags.push(tag);
        else if (++list.invalidCount <= 10) list.invalid.push(JSON.stringify(tag.slice(0, 80)));
      }
      if (list.tags.length + list.invalidCount > maxTags)
        throw new RegistryError(
          `${this.name}: the tag list holds more than ${maxTags} tags (the limit of --registry-max-tags)`,
        );
      path = nextPage(res.headers.link);
      if (path !== undefined && path.split('?')[0] !== listPath)
        throw new RegistryError(`${this.name}: the tag list's next page is not under ${listPath}`);
    }
    return list;
  }

  /** A manifest by tag or digest; the digest is the sha256 of the bytes, checked against what the registry says. */
  async manifest(reference: string, signal?: AbortSignal): Promise<FetchedManifest> {
    const where = `${this.name}:${reference}`;
    checkReference(reference, where);
    const res = await this.send('GET', `/v2/${this.ref.repository}/manifests/${reference}`, {
      accept: MANIFEST_ACCEPT,
      signal,
    });
    const bytes = await readLimited(res.body, MAX_MANIFEST_BYTES, `manifest ${where}`);
    const digest = sha256(bytes);
    if (DIGEST.test(reference) && reference !== digest)
      throw new RegistryError(`manifest ${where}: received content has digest ${digest}, not the one asked for`);
    const said = header(res.headers['docker-content-digest']);
    if (said?.startsWith('sha256:') && said !== digest)
      throw new RegistryError(`manifest ${where}: received content has digest ${digest}, the registry says ${said}`);
    return { digest, bytes, manifest: readManifest(bytes, header(res.headers['content-type']), `manifest ${where}`) };
  }

  /** The digest a tag points at, from a HEAD request (no body fetched); undefined when the registry does not say. */
  async resolve(reference: string, signal?: AbortSignal): Promise<string | undefined> {
    checkReference(reference, `${this.name}:${reference}`);
    const res = await this.send('HEAD', `/v2/${this.ref.repository}/manifests/${reference}`, {
      accept: MANIFEST_ACCEPT,
      signal,
    });
    await res.body.dump();
    const said = header(res.headers['docker-content-digest']);
    return said && DIGEST.test(said) ? said : undefined;
  }

  /**
   * A blob as a stream. Read to its end, the stream fails when the bytes do not match `digest`; a reader that
   * stops early (having found what it wanted) skips that check and must destroy the stream.
   */
  async blob(digest: string, signal?: AbortSignal): Promise<Readable> {
    if (!DIGEST.test(digest)) throw new RegistryError(`${this.name}: '${digest.slice(0, 80)}' is not a sha256 digest`);
    const res = await this.send('GET', `/v2/${this.ref.repository}/blobs/${digest}`, { signal });
    // pipeline, not pipe: an error or a stall mid-body reaches the reader, and a reader that destroys the
    // stream early destroys the response too, so its connection is freed.
    const checked = new DigestCheck(digest, `${this.name} blob ${digest}`);
    pipeline(res.body, checked, () => {});
    return checked;
  }

  /** A small blob (an image configuration), whole and checked. */
  async blobBytes(digest: string, maxBytes = MAX_MANIFEST_BYTES, signal?: AbortSignal): Promise<Buffer> {
    return readLimited(await this.blob(digest, signal), maxBytes, `${this.name} blob ${digest}`);
  }

  /** Uploads a blob unless the repository has it; returns its digest. */
  async pushBlob(bytes: Buffer): Promise<string> {
    const digest = sha256(bytes);
    const repo = this.ref.repository;
    const head = await this.send('HEAD', `/v2/${repo}/blobs/${digest}`, { access: 'pull,push', ok: [200, 404] });
    await head.body.dump();
    if (head.statusCode === 200) return digest;
    const start = await this.send('POST', `/v2/${repo}/blobs/uploads/`, { access: 'pull,push', ok: [202] });
    await start.body.dump();
    const location = header(start.headers.location);
    if (!location) throw new RegistryError(`${this.name}: blob upload answered 202 without a Location`);
    const url = new URL(location, this.base);
    url.searchParams.set('digest', digest);
    const put = await this.send('PUT', url.pathname + url.search, {
      access: 'pull,push',
      ok: [201],
      body: bytes,
      contentType: 'application/octet-stream',
    });
    await put.body.dump();
    return digest;
  }

  /** Puts a manifest under a tag (or its digest); returns its digest. */
  async pushManifest(reference: string, mediaType: string, bytes: Buffer): Promise<string> {
    const res = await this.send('PUT', `/v2/${this.ref.repository}/manifests/${reference}`, {
      access: 'pull,push',
      ok: [201],
      body: bytes,
      contentType: mediaType,
    });
    await res.body.dump();
    return sha256(bytes);
  }

  /** One request with authentication, retries, checked redirects and the expected statuses (default 200). */
  private async send(
    method: 'GET' | 'HEAD' | 'POST' | 'PUT',
    path: string,
    opts: {
      accept?: string;
      access?: Access;
      ok?: number[];
      body?: Buffer;
      contentType?: string;
      signal?: AbortSignal;
    },
  ): Promise<Dispatcher.ResponseData> {
    const access = opts.access ?? 'pull';
    const ok = opts.ok ?? [200];
    let authenticated = false;
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = { 'user-agent': 'cincy' };
      if (opts.accept) headers.accept = opts.accept;
      if (opts.contentType) headers['content-type'] = opts.contentType;
      const token = this.tokens.get(access);
      if (token) headers.authorization = token;
      this.options.onRequest?.(method, path);
      let answer: { res: Dispatcher.ResponseData; url: URL };
      try {
        answer = await this.exchange(method, new URL(this.base + path), headers, opts.body, opts.signal);
      } catch (err) {
        if (err instanceof RegistryError || opts.signal?.aborted) throw err;
        if (attempt < this.retries) {
          await delay(this.backoff(attempt), opts.signal);
          continue;
        }
        throw new RegistryError(
          `${method} ${this.base}${path}: ${describeNetworkError(err as Error, this.ref.secure)}`,
        );
      }
      const { res, url } = answer;
      if (ok.includes(res.statusCode)) return res;
      const codes = await errorCodes(res);
      if (res.statusCode === 401 && !authenticated) {
        authenticated = true;
        await this.authenticate(res.headers['www-authenticate'], access, `${method} ${where(url)}`, opts.signal);
        attempt -= 1; // the challenge is not a failure of the registry
        continue;
      }
      if (RETRIABLE.has(res.statusCode) && attempt < this.retries) {
        await delay(retryAfter(res.headers['retry-after']) ?? this.backoff(attempt), opts.signal);
        continue;
      }
      throw new RegistryError(`${method} ${where(url)}: ${res.statusCode}${codes}`, res.statusCode);
    }
  }

  /**
   * One request and the redirects it leads to (GET and HEAD only), each checked against the policy and
   * carrying the registry's authorization only on the registry's own host. The whole answer, body included,
   * must come within the request deadline; the caller's signal ends it too. Returns the URL last asked.
   */
  private async exchange(
    method: string,
    first: URL,
    headers: Record<string, string>,
    body: Buffer | undefined,
    signal: AbortSignal | undefined,
  ): Promise<{ res: Dispatcher.ResponseData; url: URL }> {
    let url = first;
    for (let hop = 0; ; hop++) {
      const { res, done } = await this.timed(url, method, signal, (s) =>
        undici().request(url, {
          method: method as Dispatcher.HttpMethod,
          headers: this.policy.isRegistry(url) ? headers : withoutAuthorization(headers),
          body,
          dispatcher: this.dispatcher,
          signal: s,
        }),
      );
      const location = header(res.headers.location);
      if (!REDIRECT.has(res.statusCode) || !location || (method !== 'GET' && method !== 'HEAD')) {
        res.body.once('close', done);
        return { res, url };
      }
      await res.body.dump().catch(() => {});
      done();
      if (hop >= MAX_REDIRECTS)
        throw new RegistryError(`${method} ${where(first)}: more than ${MAX_REDIRECTS} redirects`);
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new RegistryError(`${method} ${where(url)}: ${res.statusCode} to a location that is not a URL`);
      }
      const refused = this.policy.refusedRedirect(next);
      if (refused)
        throw new RegistryError(`${method} ${where(url)}: the redirect to ${where(next)} is refused: ${refused}`);
      url = next;
    }
  }

  /**
   * Runs one request under the request deadline and the caller's signal; the returned `done` stops the
   * deadline (call it once the body is read or dropped). A request the deadline ended fails naming it.
   */
  private async timed<T>(
    url: URL,
    method: string,
    signal: AbortSignal | undefined,
    send: (signal: AbortSignal) => Promise<T>,
  ): Promise<{ res: T; done: () => void }> {
    const seconds = this.requestDeadlineMs / 1000;
    const ends = deadline(
      this.requestDeadlineMs,
      () =>
        new RegistryError(`${method} ${where(url)}: no whole answer within ${seconds} s (--registry-request-deadline)`),
    );
    const done = ends.clear;
    try {
      return { res: await send(signal ? AbortSignal.any([signal, ends.signal]) : ends.signal), done };
    } catch (err) {
      done();
      if (ends.signal.aborted) throw ends.signal.reason as Error;
      if (signal?.aborted) throw signal.reason as Error;
      throw err;
    }
  }

  private backoff(attempt: number): number {
    return this.backoffMs * 2 ** attempt * (0.75 + Math.random() / 2);
  }

  /**
   * Answers a 401's challenge: Basic with the credential, or a Bearer token fetched from the realm. The
   * registry's credentials go to the realm only on the registry's host or one the operator allowed; a realm
   * elsewhere is asked anonymously, and its failures are not described (no port-probing through /readyz).
   */
  private async authenticate(
    header: string | string[] | undefined,
    access: Access,
    what: string,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const challenge = parseChallenge(header);
    const basic = this.credential
      ? `Basic ${Buffer.from(`${this.credential.username}:${this.credential.password}`).toString('base64')}`
      : undefined;
    if (!challenge) throw new RegistryError(`${what}: 401 without a Basic or Bearer challenge`, 401);
    if (challenge.scheme === 'basic') {
      if (!basic)
        throw new RegistryError(`${what}: 401: the registry wants credentials (give --registry-credentials)`, 401);
      this.tokens.set(access, basic);
      return;
    }
    const realm = challenge.params.realm;
    if (!realm) throw new RegistryError(`${what}: 401: the Bearer challenge names no realm`, 401);
    let url: URL;
    try {
      url = new URL(realm);
    } catch {
      throw new RegistryError(`${what}: 401: the Bearer realm is not a URL`, 401);
    }
    const refused = this.policy.refusedRealm(url);
    if (refused) throw new RegistryError(`${what}: 401: the token realm ${where(url)} is refused: ${refused}`, 401);
    if (challenge.params.service) url.searchParams.set('service', challenge.params.service);
    url.searchParams.set('scope', `repository:${this.ref.repository}:${access}`);
    const trusted = this.policy.mayCarryCredentials(url);
    const failed = (detail: string): RegistryError =>
      new RegistryError(
        trusted
          ? `${what}: token request to ${where(url)}: ${detail}`
          : `${what}: no token from the realm ${where(url)}, asked without credentials (not the registry's host: allow it with --registry-allow-hosts to send them)`,
        401,
      );
    let body: Buffer;
    let status: number;
    try {
      const { res, done } = await this.timed(url, 'GET', signal, (s) =>
        undici().request(url, {
          headers: { 'user-agent': 'cincy', ...(basic && trusted && { authorization: basic }) },
          dispatcher: this.dispatcher,
          signal: s,
        }),
      );
      status = res.statusCode;
      body = await readLimited(res.body, 1024 * 1024, `token from ${where(url)}`).finally(done);
    } catch (err) {
      if (signal?.aborted) throw err;
      throw failed(err instanceof RegistryError ? err.message : 'the request failed');
    }
    if (status !== 200) throw failed(String(status));
    let doc: { token?: unknown; access_token?: unknown };
    try {
      doc = JSON.parse(body.toString('utf8')) as typeof doc;
    } catch {
      throw failed('the answer is not JSON');
    }
    const token = typeof doc.token === 'string' ? doc.token : doc.access_token;
    if (typeof token !== 'string' || !token) throw failed('the answer holds no token');
    this.tokens.set(access, `Bearer ${token}`);
  }
}

/** Passes bytes through and fails at the end when their sha256 is not `digest`. */
class DigestCheck extends Transform {
  private readonly hash = createHash('sha256');
  constructor(
    private readonly digest: string,
    private readonly what: string,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.hash.update(chunk);
    done(null, chunk);
  }
  override _flush(done: TransformCallback): void {
    const got = `sha256:${this.hash.digest('hex')}`;
    done(got === this.digest ? null : new RegistryError(`${this.what}: received content has digest ${got}`));
  }
}

export const sha256 = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** Reads a whole body, failing with a RegistryError naming `what` past `max` bytes. */
const readLimited = (body: Readable, max: number, what: string): Promise<Buffer> =>
  readBounded(body, max, () => new RegistryError(`${what}: larger than ${max} bytes`));

/** The error codes the distribution spec defines; nothing else of an error body is ever repeated. */
const ERROR_CODES = new Set([
  'BLOB_UNKNOWN',
  'BLOB_UPLOAD_INVALID',
  'BLOB_UPLOAD_UNKNOWN',
  'DIGEST_INVALID',
  'MANIFEST_BLOB_UNKNOWN',
  'MANIFEST_INVALID',
  'MANIFEST_UNKNOWN',
  'MANIFEST_UNVERIFIED',
  'NAME_INVALID',
  'NAME_UNKNOWN',
  'SIZE_INVALID',
  'TAG_INVALID',
  'UNAUTHORIZED',
  'DENIED',
  'UNSUPPORTED',
  'TOOMANYREQUESTS',
]);

/** ` (CODE, CODE)`: the spec's error codes an error body names, or '' (the body itself is never quoted). */
async function errorCodes(res: Dispatcher.ResponseData): Promise<string> {
  let text = '';
  try {
    text = (await readLimited(res.body, 64 * 1024, 'error body')).toString('utf8');
  } catch {
    res.body.destroy();
  }
  try {
    const doc = JSON.parse(text) as { errors?: Array<{ code?: unknown }> };
    if (!Array.isArray(doc.errors)) return '';
    const codes = [...new Set(doc.errors.map((e) => e?.code).filter((c) => ERROR_CODES.has(c as string)))];
    return codes.length ? ` (${codes.join(', ')})` : '';
  } catch {
    return '';
  }
}

/** A URL as errors name it: origin and path, never the query (a pre-signed storage URL carries secrets there). */
const where = (url: URL): string => `${url.origin}${url.pathname}`;

const withoutAuthorization = (headers: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'authorization'));

/** A tag or digest before it goes into a path: the tag grammar, or a sha256 digest. */
function checkReference(reference: string, where: string): void {
  if (!TAG.test(reference) && !DIGEST.test(reference))
    throw new RegistryError(`${where.slice(0, 200)}: not a tag or a sha256 digest`);
}

/** A network error in one line, with a hint for the common mistake of TLS against a plain-HTTP registry. */
function describeNetworkError(err: Error, secure: boolean): string {
  const cause = (err as { cause?: Error }).cause;
  const text = `${err.message}${cause && cause.message !== err.message ? `: ${cause.message}` : ''}`.split('\n')[0]!;
  if (secure && /wrong version number|packet length too long/i.test(text))
    return `${text} (the registry answers plain HTTP: write it as http://HOST:PORT/…)`;
  return text;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The path of the `rel="next"` entry of a Link header. */
function nextPage(link: string | string[] | undefined): string | undefined {
  for (const part of (Array.isArray(link) ? link.join(',') : (link ?? '')).split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/i.exec(part);
    if (m) {
      const url = new URL(m[1]!, 'http://registry.invalid');
      return url.pathname + url.search;
    }
  }
  return undefined;
}

function retryAfter(value: string | string[] | undefined): number | undefined {
  const v = header(value);
  if (!v || !/^\d+$/.test(v.trim())) return undefined;
  return Math.min(Number(v) * 1000, 10_000);
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
function delay(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const stop = (): void => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal?.addEventListener('abort', stop, { once: true });
  });
}
