// `cincy mock-cluster`: a cluster that speaks the Kubernetes API for the kinds the agent and the
// update flows use, with a persisted state, a kubeconfig for clients, and simulated controllers
// (operators, the Machine Config Operator, Jobs) running on a scaled clock.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServerTls } from '../apiserver/tls.js';
import type { AddressInfo } from 'node:net';
import { stringify } from 'yaml';
import { clusterMetrics } from '../controllers/metrics.js';
import { mockClusterServer } from '../apiserver/server.js';
import { declareClock, followDeclaredClock } from '../controllers/simulation.js';
import { kindNamed } from '../apiserver/kinds.js';
import { ClusterState } from '../apiserver/state.js';
import { InMemoryClusterApi } from '../apiserver/memoryApi.js';
import { addOns, runControllers, seedCluster, simulationFlags, type MockClusterOptions } from './clusterSetup.js';

export type { MockClusterOptions };

export function kubeconfig(server: string, token: string, ca?: string): string {
  // Over HTTPS the client checks the server against our CA; over plain HTTP there is no certificate
  // to check, and the Kubernetes client wants that said.
  const cluster = ca
    ? { server, 'certificate-authority-data': Buffer.from(ca).toString('base64') }
    : { server, 'insecure-skip-tls-verify': true };
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'cincy-mock', cluster }],
    users: [{ name: 'cincy-mock-admin', user: { token } }],
    contexts: [{ name: 'cincy-mock', context: { cluster: 'cincy-mock', user: 'cincy-mock-admin' } }],
    'current-context': 'cincy-mock',
  });
}

/** A random token, kept next to the state so a restarted cluster accepts the clients it had. */
function keptToken(state: string | undefined): string {
  const file = state && `${state}.token`;
  if (file && existsSync(file)) {
    chmodSync(file, 0o600); // a credential: the owner's only, whatever made it
    return readFileSync(file, 'utf8').trim();
  }
  const token = randomBytes(24).toString('base64url');
  if (file) writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}

export async function mockClusterCommand(o: MockClusterOptions): Promise<number> {
  if (o.kubeconfig) return (await import('../remote/onApiServer.js')).simulateOnApiServer(o);
  const port = Number(o.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: '${o.port}' is not a port number`);
  const flags = simulationFlags(o);
  const { warn } = flags;
  // A port in use is found before anything is written.
  await listen(createNetServer(), port, o.host).then((probe) => new Promise((r) => probe.close(r)));
  if (o.reset && o.state) for (const f of [o.state, `${o.state}.journal`]) rmSync(f, { force: true });
  const state = new ClusterState(o.state);
  if (state.droppedBytes > 0)
    warn(
      `${o.state}.journal: dropped the last change, written only in part (${state.droppedBytes} bytes) when the process was killed; it had not been acknowledged`,
    );
  const fresh = state.empty;
  if (!fresh) checkFlagsAgainstState(state, o);
  const clock = followDeclaredClock(state, declareClock(state, flags.scale));
  // creationTimestamps and the ages of tables in simulated time, but never after the wall clock, which
  // kubectl ages timestamps against: a scaled clock runs ahead of it.
  state.now = () => Math.min(clock.now(), Date.now());
  if (fresh) seedCluster(state, o, flags);
  addOns(state, o, flags, clock.now());
  const stopControllers = runControllers(
    state,
    clock,
    o,
    flags,
    new InMemoryClusterApi(state, { fieldManager: 'lifecycle-agent' }),
  );
  const token = o.token ?? keptToken(o.state);
  const tls = o.plainHttp ? undefined : serverTls(o);
  const server = mockClusterServer({
    state,
    tokens: new Set([token]),
    metrics: () => clusterMetrics(state),
    tls,
    now: () => clock.now(),
  });
  await listen(server, port, o.host);
  const url = `${tls ? 'https' : 'http'}://${o.host}:${(server.address() as AddressInfo).port}`;
  if (o.kubeconfigOut) writeFileSync(o.kubeconfigOut, kubeconfig(url, token, tls?.ca), { mode: 0o600 });
  process.stdout.write(
    `mock cluster listening at ${url}${o.kubeconfigOut ? `; kubeconfig in ${o.kubeconfigOut}` : `; token ${token}`}\n`,
  );
  const stop = (): void => {
    stopControllers();
    try {
      state.flush(); // one snapshot to read at the next start instead of snapshot and journal
    } catch (err) {
      warn(
        `the state could not be written on stopping (every acknowledged change is in its journal): ${(err as Error).message}`,
      );
    }
    server.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return new Promise<number>(() => {});
}

/**
 * The server's certificate: kept beside the state (or in --cert-dir) to be the same at the next start;
 * without either, made in a temporary folder that is removed once read (the CA goes into the kubeconfig).
 */
function serverTls(o: { certDir?: string; state?: string; host: string }): ReturnType<typeof ensureServerTls> {
  const kept = o.certDir ?? (o.state ? `${o.state}.tls` : undefined);
  if (kept) return ensureServerTls(kept, o.host);
  const temporary = mkdtempSync(join(tmpdir(), 'cincy-mock-tls-'));
  try {
    return ensureServerTls(temporary, o.host);
  } finally {
    rmSync(temporary, { recursive: true, force: true });
  }
}

/**
 * Listens on host:port; a port in use (or not ours to take) is one clear line naming it, not a stack trace.
 */
function listen<S extends NetServer>(server: S, port: number, host: string): Promise<S> {
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const where = `${host}:${port}`;
      if (err.code === 'EADDRINUSE')
        reject(
          new Error(`--port ${port}: ${where} is in use by another process; choose another port (0: any free one)`),
        );
      else if (err.code === 'EACCES')
        reject(new Error(`--port ${port}: not allowed to listen on ${where} (ports below 1024 need privileges)`));
      else if (err.code === 'EADDRNOTAVAIL') reject(new Error(`--host ${host}: no such address on this machine`));
      else reject(err);
    });
    server.listen(port, host, () => resolve(server));
  });
}

/** What a saved cluster says of the options that shape a new one. */
function savedSettings(state: ClusterState): Record<string, string | undefined> {
  const cv = state.find(kindNamed('ClusterVersion'), undefined, 'version') as
    | {
        spec?: { channel?: string; upstream?: string };
        status?: { desired?: { version?: string; image?: string; architecture?: string } };
      }
    | undefined;
  const nodes = state.list(kindNamed('Node'));
  const arches = new Set(nodes.map((n) => n.metadata.labels?.['kubernetes.io/arch']).filter(Boolean));
  return {
    version: cv?.status?.desired?.version,
    image: cv?.status?.desired?.image,
    channel: cv?.spec?.channel ?? '',
    upstream: cv?.spec?.upstream ?? '',
    arch: cv?.status?.desired?.architecture === 'Multi' || arches.size > 1 ? 'multi' : [...arches][0],
  };
}

const FLAG_OF: Record<string, string> = {
  version: '--version',
  image: '--image',
  channel: '--channel',
  upstream: '--upstream',
  arch: '--arch',
};

/**
 * A saved cluster is restarted as it was saved: a flag given that says otherwise (another version, channel,
 * image, upstream or architecture) is an error naming both, rather than silently ignored. The saved cluster
 * may have been updated since it was made, so its version now is what counts; --reset starts afresh.
 */
function checkFlagsAgainstState(state: ClusterState, o: MockClusterOptions): void {
  const saved = savedSettings(state);
  const differ = Object.keys(FLAG_OF).filter((k) => {
    if (!o.given?.has(k)) return false;
    const wanted = (o as unknown as Record<string, string | undefined>)[k] ?? '';
    return saved[k] !== undefined && wanted !== saved[k];
  });
  if (differ.length === 0) return;
  const what = differ.map(
    (k) =>
      `${FLAG_OF[k]} ${JSON.stringify((o as unknown as Record<string, string>)[k])} (the saved cluster has ${JSON.stringify(saved[k])})`,
  );
  throw new Error(
    `${o.state}: a saved cluster restarts as it was saved, and ${what.join(', ')} ${differ.length === 1 ? 'says' : 'say'} otherwise; drop ${differ.map((k) => FLAG_OF[k]).join(', ')}, change the cluster through its API (cincy adm upgrade, kubectl), or start a new cluster with --reset (which discards ${o.state})`,
  );
}
