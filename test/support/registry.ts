// A real container registry (Debian's docker-registry: the CNCF distribution registry 2.8) as a
// process on a free port, over plain HTTP or TLS from a test CA, optionally behind htpasswd basic
// auth. Its access log (combined format, on stdout) tells the tests which requests it served.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import bcrypt from 'bcryptjs';
import { Agent, request } from 'undici';
import { stringify } from 'yaml';
import { ensureServerTls } from '@cincy/simulator/apiserver/tls';
import { freePort } from './prometheus.js';
import { SKOPEO } from './skopeo.js';

export const DOCKER_REGISTRY = '/usr/bin/docker-registry';
const HARNESS_AGENT = 'cincy-test-registry-harness'; // its own requests, left out of requests()

/** True when both binaries are here; under CI=true their absence fails, never skips. */
export function registryAvailable(): boolean {
  const missing = [
    [DOCKER_REGISTRY, 'docker-registry'],
    [SKOPEO, 'skopeo'],
  ].filter(([bin]) => !existsSync(bin!));
  if (!missing.length) return true;
  const what = missing.map(([bin]) => bin).join(' and ');
  const install = `apt-get install ${missing.map(([, pkg]) => pkg).join(' ')}`;
  if (process.env.CI === 'true')
    throw new Error(`${what} missing (CI=true: nothing may skip; .ci/run installs them: ${install})`);
  console.warn(`\n*** SKIPPING tests that need a real container registry: ${what} not found (${install}) ***\n`);
  return false;
}

/** One line of the registry's access log. */
export interface RegistryRequest {
  method: string;
  /** The request path, without the query: '/v2/REPO/blobs/sha256:…'. */
  path: string;
  /** The query string without '?', '' when none. */
  query: string;
  status: number;
  userAgent: string;
}

export interface RegistryOptions {
  /** Config, storage, certificates and credentials go here. */
  dir: string;
  /** htpasswd basic auth with this one user. */
  auth?: { user: string; password: string };
  /** HTTPS with a certificate from a test CA (caFile). */
  tls?: boolean;
  /**
   * A registry storage folder to start from (another registry's DIR/storage), copied so it stays as it
   * was: images pushed once serve many tests without pushing them again.
   */
  seed?: string;
}

export interface TestRegistry {
  /** '127.0.0.1:PORT' */
  host: string;
  /** 'http://127.0.0.1:PORT', or https:// with tls. */
  url: string;
  /** How cincy's flags name a repository here: 'http://127.0.0.1:PORT/REPO' for plain HTTP, '127.0.0.1:PORT/REPO' with TLS. */
  reference(repo: string): string;
  /** Its storage folder (DIR/storage): a `seed` for other registries. */
  storage: string;
  /** With tls: the CA's PEM file, alone in its folder (a cert dir for skopeo or certs.d). */
  caFile?: string;
  /** With auth: a docker/podman config.json naming this registry's credentials. */
  credentialsFile?: string;
  /** The requests served so far, across restarts, oldest first (waits until the log has caught up). */
  requests(): Promise<RegistryRequest[]>;
  /** What the registry wrote on stderr (warnings and errors at log level warn), across restarts. */
  stderr(): string;
  /** Stops the process (the storage stays). */
  stop(): Promise<void>;
  /** Starts it again on the same port and storage; resolves once /v2/ answers. */
  start(): Promise<void>;
}

// Combined log format: host ident user [time] "METHOD URI PROTO" status size "referer" "agent"
const ACCESS_LINE = /^\S+ \S+ \S+ \[[^\]]*\] "(\S+) (\S+)[^"]*" (\d{3}) \S+ "(?:[^"\\]|\\.)*" "((?:[^"\\]|\\.)*)"/;

function parseAccessLine(line: string): RegistryRequest | undefined {
  const m = ACCESS_LINE.exec(line);
  if (!m) return undefined;
  const [, method, target, status, userAgent] = m as unknown as [string, string, string, string, string];
  const q = target.indexOf('?');
  return {
    method,
    path: q < 0 ? target : target.slice(0, q),
    query: q < 0 ? '' : target.slice(q + 1),
    status: Number(status),
    userAgent,
  };
}

/** Writes the registry's config (and certificate, htpasswd, credentials) under opts.dir and starts it. */
export async function startRegistry(
  opts: RegistryOptions,
  cleanup: { add(f: () => unknown): void },
): Promise<TestRegistry> {
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const url = `${opts.tls ? 'https' : 'http'}://${host}`;
  const http: Record<string, unknown> = { addr: host, secret: 'cincy-test-registry' }; // a fixed secret: uploads survive restarts
  let caFile: string | undefined;
  let ca: string | undefined;
  if (opts.tls) {
    const tlsDir = join(opts.dir, 'tls');
    ca = ensureServerTls(tlsDir, '127.0.0.1').ca;
    http.tls = { certificate: join(tlsDir, 'server.crt'), key: join(tlsDir, 'server.key') };
    // skopeo reads every *.key in a cert dir as a client key, so the CA gets a folder of its own.
    mkdirSync(join(opts.dir, 'ca'), { recursive: true });
    caFile = join(opts.dir, 'ca', 'ca.crt');
    copyFileSync(join(tlsDir, 'ca.crt'), caFile);
  }
  let auth: Record<string, unknown> | undefined;
  let credentialsFile: string | undefined;
  if (opts.auth) {
    const { user, password } = opts.auth;
    const htpasswd = join(opts.dir, 'htpasswd');
    // Cost 4, the least bcrypt allows: the registry checks the hash on every request.
    writeFileSync(htpasswd, `${user}:${bcrypt.hashSync(password, 4)}\n`);
    auth = { htpasswd: { realm: 'cincy-test-registry', path: htpasswd } };
    credentialsFile = join(opts.dir, 'auth.json');
    const token = Buffer.from(`${user}:${password}`).toString('base64');
    writeFileSync(credentialsFile, JSON.stringify({ auths: { [host]: { auth: token } } }, null, 2));
  }
  const storage = join(opts.dir, 'storage');
  if (opts.seed) cpSync(opts.seed, storage, { recursive: true });
  const config = join(opts.dir, 'registry.yml');
  writeFileSync(
    config,
    stringify({
      version: '0.1',
      // warn keeps the per-request application lines off stderr; the access log is separate and stays on.
      log: { level: 'warn', accesslog: { disabled: false } },
      storage: { filesystem: { rootdirectory: storage }, delete: { enabled: true } },
      http,
      ...(auth && { auth }),
    }),
  );

  const agent = new Agent(ca ? { connect: { ca } } : {});
  cleanup.add(() => agent.close());
  const probe = async (path: string): Promise<number> => {
    const res = await request(`${url}${path}`, { dispatcher: agent, headers: { 'user-agent': HARNESS_AGENT } });
    await res.body.dump();
    return res.statusCode;
  };

  const served: RegistryRequest[] = [];
  let child: ChildProcessByStdio<null, Readable, Readable> | undefined;
  let closed: Promise<void> = Promise.resolve();
  let stderr = '';
  let barriers = 0;
  let onLine: (() => void) | undefined;

  const start = async (): Promise<void> => {
    if (child) throw new Error(`registry ${host} is already running`);
    const c = spawn(DOCKER_REGISTRY, ['serve', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    closed = new Promise((resolve) => c.once('close', () => resolve()));
    let partial = '';
    c.stdout.on('data', (b: Buffer) => {
      const lines = (partial + b.toString()).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        const r = parseAccessLine(line);
        if (r) served.push(r);
      }
      onLine?.();
    });
    c.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    for (let i = 0; i < 200; i++) {
      if (c.exitCode !== null || c.signalCode !== null) {
        child = undefined;
        throw new Error(`docker-registry exited (${c.exitCode ?? c.signalCode}): ${stderr}`);
      }
      const status = await probe('/v2/').catch(() => 0);
      if (status === 200 || status === 401) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`docker-registry did not answer on ${url}/v2/ in time: ${stderr}`);
  };

  const stop = async (): Promise<void> => {
    const c = child;
    if (!c) return;
    child = undefined;
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
    const hung = setTimeout(() => c.kill('SIGKILL'), 5000);
    await closed; // stdout is drained: every served request is in `served`
    clearTimeout(hung);
  };

  const requests = async (): Promise<RegistryRequest[]> => {
    if (child) {
      // A request of our own, then wait for its log line. The registry logs a request when its
      // handler returns, before net/http sends the response's last buffered bytes, so a request
      // whose response a test has read is logged before this one.
      const mark = `/cincy-log-barrier/${++barriers}`;
      await probe(mark);
      const seen = (): boolean => served.some((r) => r.path === mark);
      for (let i = 0; i < 200 && !seen(); i++)
        await new Promise<void>((resolve) => {
          onLine = resolve;
          setTimeout(resolve, 25);
        });
      onLine = undefined;
      if (!seen()) throw new Error(`registry ${host}: the access log never showed ${mark}: ${stderr}`);
    }
    return served.filter((r) => r.userAgent !== HARNESS_AGENT);
  };

  cleanup.add(stop);
  await start();
  return {
    host,
    url,
    storage,
    reference: (repo) => (opts.tls ? `${host}/${repo}` : `${url}/${repo}`),
    caFile,
    credentialsFile,
    requests,
    stderr: () => stderr,
    stop,
    start,
  };
}
