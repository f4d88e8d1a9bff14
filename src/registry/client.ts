// A client of one repository of a registry speaking the distribution (OCI) API: tags with pagination,
// manifests with their digests checked, blobs as streams, and pushes. Authentication follows the registry's
// challenge (Basic, or a Bearer token from its realm); 429, 5xx and network errors are retried with backoff;
// every request has a timeout.
import { createHash } from 'node:crypto';
import { pipeline, Readable, Transform, type TransformCallback } from 'node:stream';
import { Agent, interceptors, request, type Dispatcher } from 'undici';
import { parseChallenge } from './challenge.js';
import { RegistryCredentials, type Credential } from './credentials.js';
import { MANIFEST_ACCEPT, readManifest, type RegistryManifest } from './manifest.js';
import { DIGEST, describe, type RepositoryReference } from './reference.js';
import { readBounded } from '../readBounded.js';

export interface RegistryClientOptions {
  credentials?: RegistryCredentials;
  /** PEM CA bundle the registry's certificate is checked against (default: the system's). */
  ca?: string;
  /** Milliseconds a request may wait for headers, or between two chunks of a body. */
  timeoutMs?: number;
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
const MAX_TAG_PAGES = 100_000;
const RETRIABLE = new Set([408, 429, 500, 502, 503, 504]);

type Access = 'pull' | 'pull,push';

export class RegistryClient {
  readonly base: string;
  private readonly dispatcher: Dispatcher;
  private readonly credential: Credential | undefined;
  private readonly tokens = new Map<Access, string>();
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;

  constructor(
    readonly ref: RepositoryReference,
    private readonly options: RegistryClientOptions = {},
  ) {
    this.base = `${ref.secure ? 'https' : 'http'}://${ref.registry}`;
    this.credential = (options.credentials ?? RegistryCredentials.none()).for(ref);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = options.retries ?? 3;
    this.backoffMs = options.backoffMs ?? 250;
    // Blobs may be served by a redirect to storage; undici drops the Authorization header when the host changes.
    this.dispatcher = new Agent({
      connect: options.ca ? { ca: options.ca } : {},
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      connections: 32,
    }).compose(interceptors.redirect({ maxRedirections: 5 }));
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }

  private get name(): string {
    return describe(this.ref);
  }

  /** Every tag, following the `Link: <…>; rel="next"` pages (`n` per page). */
  async tags(pageSize = 1000): Promise<string[]> {
    const all: string[] = [];
    let path: string | undefined = `/v2/${this.ref.repository}/tags/list?n=${pageSize}`;
    const seen = new Set<string>();
    for (let page = 0; path; page++) {
      if (page >= MAX_TAG_PAGES || seen.has(path))
        throw new RegistryError(`${this.name}: the tag list does not end (page ${page}: ${path})`);
      seen.add(path);
      const res = await this.send('GET', path, { accept: 'application/json' });
      const body = await readLimited(res.body, MAX_MANIFEST_BYTES, `${this.name} tag list`);
      let doc: { tags?: unknown };
      try {
        doc = JSON.parse(body.toString('utf8')) as { tags?: unknown };
      } catch (err) {
        throw new RegistryError(`${this.name}: tag list is not JSON: ${(err as Error).message}`);
      }
      const tags = doc.tags ?? [];
      if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string'))
        throw new RegistryError(`${this.name}: tag list: tags: expected a list of strings`);
      all.push(...(tags as string[]));
      path = nextPage(res.headers.link);
    }
    return all;
  }

  /** A manifest by tag or digest; the digest is the sha256 of the bytes, checked against what the registry says. */
  async manifest(reference: string): Promise<FetchedManifest> {
    const where = `${this.name}:${reference}`;
    const res = await this.send('GET', `/v2/${this.ref.repository}/manifests/${reference}`, {
      accept: MANIFEST_ACCEPT,
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
  async resolve(reference: string): Promise<string | undefined> {
    const res = await this.send('HEAD', `/v2/${this.ref.repository}/manifests/${reference}`, {
      accept: MANIFEST_ACCEPT,
    });
    await res.body.dump();
    const said = header(res.headers['docker-content-digest']);
    return said && DIGEST.test(said) ? said : undefined;
  }

  /**
   * A blob as a stream. Read to its end, the stream fails when the bytes do not match `digest`; a reader that
   * stops early (having found what it wanted) skips that check and must destroy the stream.
   */
  async blob(digest: string): Promise<Readable> {
    const res = await this.send('GET', `/v2/${this.ref.repository}/blobs/${digest}`, {});
    // pipeline, not pipe: an error or a stall mid-body reaches the reader, and a reader that destroys the
    // stream early destroys the response too, so its connection is freed.
    const checked = new DigestCheck(digest, `${this.name} blob ${digest}`);
    pipeline(res.body, checked, () => {});
    return checked;
  }

  /** A small blob (an image configuration), whole and checked. */
  async blobBytes(digest: string, maxBytes = MAX_MANIFEST_BYTES): Promise<Buffer> {
    return readLimited(await this.blob(digest), maxBytes, `${this.name} blob ${digest}`);
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

  /** One request with authentication, retries and the expected statuses (default 200). */
  private async send(
    method: 'GET' | 'HEAD' | 'POST' | 'PUT',
    path: string,
    opts: { accept?: string; access?: Access; ok?: number[]; body?: Buffer; contentType?: string },
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
      let res: Dispatcher.ResponseData;
      try {
        res = await request(this.base + path, { method, headers, body: opts.body, dispatcher: this.dispatcher });
      } catch (err) {
        if (attempt < this.retries) {
          await delay(this.backoff(attempt));
          continue;
        }
        throw new RegistryError(
          `${method} ${this.base}${path}: ${describeNetworkError(err as Error, this.ref.secure)}`,
        );
      }
      if (ok.includes(res.statusCode)) return res;
      const text = await readError(res);
      if (res.statusCode === 401 && !authenticated) {
        authenticated = true;
        await this.authenticate(res.headers['www-authenticate'], access, `${method} ${this.base}${path}`);
        attempt -= 1; // the challenge is not a failure of the registry
        continue;
      }
      if (RETRIABLE.has(res.statusCode) && attempt < this.retries) {
        await delay(retryAfter(res.headers['retry-after']) ?? this.backoff(attempt));
        continue;
      }
      throw new RegistryError(`${method} ${this.base}${path}: ${res.statusCode} ${text}`, res.statusCode);
    }
  }

  private backoff(attempt: number): number {
    return this.backoffMs * 2 ** attempt * (0.75 + Math.random() / 2);
  }

  /** Answers a 401's challenge: Basic with the credential, or a Bearer token fetched from the realm. */
  private async authenticate(header: string | string[] | undefined, access: Access, what: string): Promise<void> {
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
    const url = new URL(realm);
    if (challenge.params.service) url.searchParams.set('service', challenge.params.service);
    url.searchParams.set('scope', `repository:${this.ref.repository}:${access}`);
    const res = await request(url, {
      headers: { 'user-agent': 'cincy', ...(basic && { authorization: basic }) },
      dispatcher: this.dispatcher,
    });
    const body = await readLimited(res.body, 1024 * 1024, `token from ${url.origin}`);
    if (res.statusCode !== 200)
      throw new RegistryError(`${what}: token request to ${url.origin}${url.pathname}: ${res.statusCode}`, 401);
    let doc: { token?: unknown; access_token?: unknown };
    try {
      doc = JSON.parse(body.toString('utf8')) as typeof doc;
    } catch {
      throw new RegistryError(`${what}: the token answer from ${url.origin} is not JSON`, 401);
    }
    const token = typeof doc.token === 'string' ? doc.token : doc.access_token;
    if (typeof token !== 'string' || !token)
      throw new RegistryError(`${what}: the token answer from ${url.origin} holds no token`, 401);
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

/** The registry's error in one line: `CODE message` of the distribution error body, else the start of the text. */
async function readError(res: Dispatcher.ResponseData): Promise<string> {
  let text = '';
  try {
    text = (await readLimited(res.body, 64 * 1024, 'error body')).toString('utf8');
  } catch {
    res.body.destroy();
  }
  try {
    const doc = JSON.parse(text) as { errors?: Array<{ code?: string; message?: string }> };
    if (Array.isArray(doc.errors) && doc.errors.length)
      return doc.errors.map((e) => `${e.code ?? ''} ${e.message ?? ''}`.trim()).join('; ');
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 200).trim();
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

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
