// The files that run several replicas on one PostgreSQL. deploy/kubernetes is rendered by the real
// `kubectl kustomize` and its objects checked against each other; the nginx config docker-compose.yml
// mounts is checked by the real nginx (`nginx -t`), then
// run in front of two real `cincy serve` processes: responses pass through untouched (ETag, 304,
// Content-Encoding, Vary), reads step around a dead replica and writes are never sent twice.
//
// kubectl and nginx are Debian packages (kubernetes-client, nginx). Locally a missing one skips its part
// loudly; under CI=true it fails, so .ci/run must install both. docker-compose.yml itself is read by
// test/unit/deploy-compose.test.ts.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, existsSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { serveCli, useCleanup, type Served } from '../support/cli.js';
import { KUBECTL, kubectlAvailable } from '../support/kubectl.js';
import { freePort } from '../support/prometheus.js';
import { localNginxConfig, NGINX, nginxArgs } from '../../scripts/lib/nginxProxy.mjs';
import { nginxConf, portOf, replicas } from '../support/compose.js';

const ROOT = join(import.meta.dirname, '..', '..');
const cleanup = useCleanup();

function nginxAvailable(): boolean {
  if (existsSync(NGINX)) return true;
  if (process.env.CI === 'true')
    throw new Error(`${NGINX} is missing (CI=true: nothing may skip; .ci/run installs the nginx package)`);
  console.warn(`\n*** SKIPPING the nginx checks of deploy/nginx: ${NGINX} not found (apt-get install nginx) ***\n`);
  return false;
}

/** Every label a selector asks for, with the same value (an empty selector selects nothing here). */
function selects(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  const wanted = Object.entries(selector ?? {});
  return wanted.length > 0 && wanted.every(([k, v]) => labels?.[k] === v);
}

// ---------------------------------------------------------------------------------------------------
// Kubernetes

interface Probe {
  httpGet?: { path: string; port: number | string };
  periodSeconds?: number;
  failureThreshold?: number;
}
interface Container {
  name: string;
  image: string;
  ports?: Array<{ name?: string; containerPort: number }>;
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    runAsUser?: number;
    runAsNonRoot?: boolean;
    capabilities?: { drop?: string[] };
  };
}
interface PodSpec {
  containers: Container[];
  volumes?: Array<{
    name: string;
    secret?: { secretName: string; items?: Array<{ key: string; path: string }> };
  }>;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  enableServiceLinks?: boolean;
  affinity?: {
    podAntiAffinity?: {
      preferredDuringSchedulingIgnoredDuringExecution?: Array<{
        podAffinityTerm: { topologyKey: string; labelSelector: { matchLabels: Record<string, string> } };
      }>;
    };
  };
}
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec: {
    replicas?: number;
    /** matchLabels for a Deployment or a PodDisruptionBudget, the labels themselves for a Service. */
    selector?: { matchLabels?: Record<string, string>; [label: string]: unknown };
    strategy?: { type: string; rollingUpdate?: { maxUnavailable: number | string; maxSurge: number | string } };
    template?: { metadata: { labels: Record<string, string> }; spec: PodSpec };
    minAvailable?: number | string;
    ports?: Array<{ name?: string; port: number; targetPort?: number | string }>;
  };
}

describe.runIf(kubectlAvailable())('deploy/kubernetes, as kubectl kustomize renders it', () => {
  let objects: K8sObject[] = [];
  const one = (kind: string): K8sObject => {
    const found = objects.filter((o) => o.kind === kind);
    expect(
      found.map((o) => o.metadata.name),
      kind,
    ).toHaveLength(1);
    return found[0]!;
  };
  const deployment = () => one('Deployment');
  const podLabels = () => deployment().spec.template!.metadata.labels;
  const container = () => deployment().spec.template!.spec.containers[0]!;
  const containerPort = () => container().ports!.find((p) => p.containerPort === 8080)!;
  const env = (name: string) => container().env?.find((e) => e.name === name);
  /** Whether a probe's or a Service's port (a number or a port name) is the container's port. */
  const isContainerPort = (port: number | string | undefined) =>
    port === containerPort().containerPort || (port !== undefined && port === containerPort().name);

  beforeAll(() => {
    const out = execFileSync(KUBECTL, ['kustomize', join(ROOT, 'deploy', 'kubernetes')], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    objects = parseAllDocuments(out).map((d) => d.toJS() as K8sObject);
  });

  it('renders a Deployment, a Service and a PodDisruptionBudget, and no Secret', () => {
    expect(objects.map((o) => o.kind).sort()).toEqual(['Deployment', 'PodDisruptionBudget', 'Service']);
    expect(one('PodDisruptionBudget').apiVersion).toBe('policy/v1');
  });

  it('runs two replicas, rolled one at a time without losing one, on different nodes where it can', () => {
    const d = deployment();
    expect(d.spec.replicas).toBe(2);
    expect(d.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
    expect(selects(d.spec.selector?.matchLabels, podLabels())).toBe(true);
    const terms = d.spec.template!.spec.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution;
    expect(terms?.length).toBeGreaterThan(0);
    expect(terms![0]!.podAffinityTerm.topologyKey).toBe('kubernetes.io/hostname');
    expect(selects(terms![0]!.podAffinityTerm.labelSelector.matchLabels, podLabels())).toBe(true);
  });

  it('probes /readyz for readiness and /livez for liveness and start-up, on the container port', () => {
    const c = container();
    expect(containerPort().containerPort).toBe(8080);
    expect(c.readinessProbe?.httpGet?.path).toBe('/readyz');
    expect(c.livenessProbe?.httpGet?.path).toBe('/livez');
    // /livez, not /readyz: a database that is down at start must not get the pod restarted in a loop.
    expect(c.startupProbe?.httpGet?.path).toBe('/livez');
    for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe])
      expect(isContainerPort(probe?.httpGet?.port), JSON.stringify(probe)).toBe(true);
    // The process listens on that port: Service links would otherwise set CINCY_PORT=tcp://... from the
    // Service named cincy, which cincy reads as its own setting.
    expect(env('CINCY_PORT')?.value).toBe(String(containerPort().containerPort));
    expect(env('CINCY_HOST')?.value).toBe('0.0.0.0');
    expect(deployment().spec.template!.spec.enableServiceLinks).toBe(false);
  });

  it('reads CINCY_DB from a Secret, and the admin secret from a Secret mounted as a file', () => {
    const db = env('CINCY_DB');
    expect(db?.value).toBeUndefined();
    expect(db?.valueFrom?.secretKeyRef?.name).toBeTruthy();
    expect(db?.valueFrom?.secretKeyRef?.key).toBeTruthy();

    const file = env('CINCY_ADMIN_JWT_SECRET_FILE')?.value;
    expect(file).toMatch(/^\//);
    const mount = container().volumeMounts?.find((m) => file!.startsWith(`${m.mountPath.replace(/\/$/, '')}/`));
    expect(mount, `a volume mounted above ${file}`).toBeDefined();
    expect(mount!.readOnly).toBe(true);
    const volume = deployment().spec.template!.spec.volumes?.find((v) => v.name === mount!.name);
    expect(volume?.secret?.secretName).toBeTruthy();
    // The file is a key of the Secret: listed by items, or (without items) one file per key.
    const inMount = file!.slice(mount!.mountPath.replace(/\/$/, '').length + 1);
    const items = volume!.secret!.items;
    if (items) expect(items.map((i) => i.path)).toContain(inMount);
    else expect(inMount).not.toContain('/');
  });

  it('runs as a non-root user on a read-only root, with requests and limits', () => {
    const c = container();
    const pod = deployment().spec.template!.spec;
    expect(pod.securityContext?.runAsNonRoot ?? c.securityContext?.runAsNonRoot).toBe(true);
    // restricted-v2 assigns the UID: the manifests fix none (the image's numeric USER runs elsewhere).
    expect(pod.securityContext?.runAsUser).toBeUndefined();
    expect(c.securityContext?.runAsUser).toBeUndefined();
    expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
    expect(c.securityContext?.capabilities?.drop).toContain('ALL');
    expect(Object.keys(c.resources?.requests ?? {}).sort()).toEqual(['cpu', 'memory']);
    expect(c.resources?.limits?.memory).toBeTruthy();
  });

  it('selects the Deployment’s pods with the PodDisruptionBudget and the Service, which targets the container port', () => {
    const pdb = one('PodDisruptionBudget');
    expect(pdb.spec.minAvailable).toBe(1);
    expect(selects(pdb.spec.selector?.matchLabels, podLabels())).toBe(true);
    const service = one('Service');
    expect(selects(service.spec.selector as Record<string, string>, podLabels())).toBe(true);
    expect(service.spec.ports).toHaveLength(1);
    expect(service.spec.ports![0]!.port).toBe(8080);
    expect(isContainerPort(service.spec.ports![0]!.targetPort ?? service.spec.ports![0]!.port)).toBe(true);
  });

  it('commits no secret: the example Secrets hold placeholders only, and are not rendered', () => {
    const dir = join(ROOT, 'deploy', 'kubernetes');
    for (const name of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f))) {
      for (const doc of parseAllDocuments(readFileSync(join(dir, name), 'utf8'))) {
        const o = doc.toJS() as { kind?: string; stringData?: Record<string, string>; data?: unknown } | null;
        if (o?.kind !== 'Secret') continue;
        expect(o.data, name).toBeUndefined();
        for (const [key, value] of Object.entries(o.stringData ?? {}))
          expect(value, `${name}: ${key}`).toMatch(/REPLACE-ME/);
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// nginx itself, with docker-compose.yml's config (test/support/compose.ts reads it)

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One request on a connection of its own; the body as sent (no decompression). */
function send(url: string, method = 'GET', headers: Record<string, string> = {}, body?: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${url}: no answer in 30 s`)));
    req.end(body);
  });
}

/**
 * A copy of the config in `dir` that runs here: each replica's name (and port) replaced by the address
 * given, nginx's own port by `listen` if given, temporary files in `dir`. Nothing else changes.
 */
function localConfig(dir: string, addresses: Record<string, string>, listen?: number): string {
  const byServer = Object.fromEntries(replicas.map((name) => [`${name}:${portOf(name)}`, addresses[name]!]));
  const file = join(dir, 'nginx.conf');
  writeFileSync(file, localNginxConfig(nginxConf(), byServer, dir, listen));
  return file;
}

interface RunningNginx {
  url: string;
  /** What nginx wrote: its access log goes to standard output. */
  log(): string;
}

/**
 * nginx's standard output and error, to a file: the access log is /dev/stdout, which nginx opens again by
 * name, and a socket (what a pipe to this process is) cannot be opened so.
 */
function outputFile(dir: string): { fd: number; read(): string } {
  const file = join(dir, 'output.log');
  const fd = openSync(file, 'a');
  cleanup.add(() => closeSync(fd));
  return { fd, read: () => readFileSync(file, 'utf8') };
}

async function startNginx(dir: string, addresses: Record<string, string>): Promise<RunningNginx> {
  const port = await freePort();
  const file = localConfig(dir, addresses, port);
  const output = outputFile(dir);
  const child: ChildProcess = spawn(NGINX, nginxArgs(dir, file, ' daemon off;'), {
    stdio: ['ignore', output.fd, output.fd],
  });
  const out = () => output.read();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // SIGTERM, not SIGKILL: the master stops its workers (killed, they would keep the port).
  cleanup.add(async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited ${child.exitCode}: ${out()}`);
    const up = await send(`${url}/livez`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) return { url, log: out };
    if (i > 200) throw new Error(`nginx did not answer in 10 s: ${out()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A temporary folder nginx's workers can use too (they run as nobody when the tests run as root). */
function nginxDir(): string {
  const dir = cleanup.dir();
  chmodSync(dir, 0o755);
  return dir;
}

const GRAPH = '/api/upgrades_info/v1/graph?channel=stable-4.16';
/** The headers a representation is told apart and cached by. */
const REPRESENTATION = ['content-type', 'content-encoding', 'etag', 'vary', 'cache-control'];
const pick = (h: IncomingHttpHeaders) => Object.fromEntries(REPRESENTATION.map((k) => [k, h[k]]));
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe.runIf(nginxAvailable())('deploy/nginx with the real nginx', () => {
  let a: Served;
  let b: Served;
  let addresses: Record<string, string>;

  const startReplicas = async () => {
    const demo = ['--db', ':memory:', '--demo'];
    [a, b] = await Promise.all([serveCli(demo, cleanup), serveCli(demo, cleanup)]);
    addresses = { [replicas[0]!]: new URL(a.url).host, [replicas[1]!]: new URL(b.url).host };
  };

  it('accepts the config (nginx -t), with the replica names replaced by a local address', () => {
    const dir = nginxDir();
    const file = localConfig(dir, Object.fromEntries(replicas.map((r) => [r, `127.0.0.1:${portOf(r)}`])));
    const output = outputFile(dir);
    const r = spawnSync(NGINX, ['-t', ...nginxArgs(dir, file)], {
      stdio: ['ignore', output.fd, output.fd],
      timeout: 30_000,
    });
    expect(output.read()).toContain('test is successful');
    expect(r.status).toBe(0);
  });

  it('passes the graph through untouched: the same bytes, ETag, Content-Encoding and Vary, and 304', async () => {
    await startReplicas();
    const nginx = await startNginx(nginxDir(), addresses);
    for (const encoding of ['gzip', 'br', 'identity', 'gzip, deflate, br']) {
      const headers = { accept: 'application/json', 'accept-encoding': encoding };
      const direct = await send(`${a.url}${GRAPH}`, 'GET', headers);
      expect(direct.status).toBe(200);
      // The replicas agree on the representation, so an ETag from one is good at the other.
      expect(pick((await send(`${b.url}${GRAPH}`, 'GET', headers)).headers)).toEqual(pick(direct.headers));
      // Four requests: round robin sends two to each replica.
      for (let i = 0; i < 4; i++) {
        const proxied = await send(`${nginx.url}${GRAPH}`, 'GET', headers);
        expect(proxied.status, encoding).toBe(200);
        expect(pick(proxied.headers), encoding).toEqual(pick(direct.headers));
        expect(proxied.body.equals(direct.body), `${encoding}: the body as the replica sent it`).toBe(true);
        const head = await send(`${nginx.url}${GRAPH}`, 'HEAD', headers);
        expect(head.status).toBe(200);
        expect(head.headers.etag).toBe(direct.headers.etag);
        const again = await send(`${nginx.url}${GRAPH}`, 'GET', { ...headers, 'if-none-match': direct.headers.etag! });
        expect(again.status, encoding).toBe(304);
        expect(again.body.length).toBe(0);
        expect(again.headers.etag).toBe(direct.headers.etag);
      }
    }
    // Both replicas answered.
    expect(nginx.log()).toContain(`upstream=${addresses[replicas[0]!]}`);
    expect(nginx.log()).toContain(`upstream=${addresses[replicas[1]!]}`);
  });

  it('takes the largest body cincy takes, and leaves the answer to cincy', async () => {
    await startReplicas();
    const nginx = await startNginx(nginxDir(), addresses);
    // 8 MiB of release list without a token: cincy's 401, in its JSON, not nginx's 413.
    const big = Buffer.alloc(8 * 1024 * 1024, ' ');
    big.write('[]');
    const r = await send(`${nginx.url}/api/v1/releases`, 'POST', { 'content-type': 'application/json' }, big);
    expect(r.status).toBe(401);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
  });

  /**
   * Four requests of `method` through an nginx of its own (so round robin starts afresh and reaches both
   * replicas): their statuses, and whether nginx tried a second replica for any of them.
   */
  async function fourThrough(method: string, path: string): Promise<{ statuses: number[]; retried: boolean }> {
    const nginx = await startNginx(nginxDir(), addresses);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await send(`${nginx.url}${path}`, method)).status);
    // $upstream_addr lists every replica tried, comma-separated.
    const retried = new RegExp(`"${method} ${escape(path)} .*upstream=\\S+, `).test(nginx.log());
    return { statuses, retried };
  }

  it('steps around a replica that is down: reads, and writes it never got, go to the other', async () => {
    await startReplicas();
    b.child.kill('SIGKILL');
    await new Promise((r) => (b.child.exitCode === null ? b.child.once('exit', r) : r(undefined)));

    const reads = await fourThrough('GET', GRAPH);
    expect(reads).toEqual({ statuses: [200, 200, 200, 200], retried: true });
    // POST and PATCH never reached the dead replica (it refused the connection): nginx sends them on.
    for (const method of ['POST', 'PATCH']) {
      expect((await send(`${a.url}${GRAPH}`, method)).status).toBe(405);
      expect(await fourThrough(method, GRAPH), method).toEqual({ statuses: [405, 405, 405, 405], retried: true });
    }
    // PUT and DELETE are never sent twice, even so: nginx cannot tell them apart from a write that arrived.
    for (const method of ['PUT', 'DELETE']) {
      const { statuses, retried } = await fourThrough(method, GRAPH);
      expect(statuses, method).toContain(502);
      expect(new Set(statuses), method).toEqual(new Set([405, 502]));
      expect(retried, method).toBe(false);
    }
  });

  it('never sends a write again once a replica got it, even when it answered nothing', async () => {
    await startReplicas();
    // In place of the second replica: a server that reads a request, then drops the connection.
    const got: string[] = [];
    const dropper = createServer((socket) =>
      socket.once('data', (d: Buffer) => {
        got.push(d.toString('latin1').split(' ')[0]!);
        socket.destroy();
      }),
    );
    await new Promise<void>((resolve) => dropper.listen(0, '127.0.0.1', resolve));
    cleanup.add(() => new Promise((resolve) => dropper.close(resolve)));
    addresses[replicas[1]!] = `127.0.0.1:${(dropper.address() as { port: number }).port}`;

    // A read it dropped is answered by the other replica.
    expect(await fourThrough('GET', GRAPH)).toEqual({ statuses: [200, 200, 200, 200], retried: true });
    for (const method of ['POST', 'PATCH', 'PUT', 'DELETE']) {
      const { statuses, retried } = await fourThrough(method, GRAPH);
      expect(got, method).toContain(method);
      expect(statuses, method).toContain(502);
      expect(new Set(statuses), method).toEqual(new Set([405, 502]));
      expect(retried, method).toBe(false);
    }
  });
});
