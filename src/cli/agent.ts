// `cincy agent`: keeps a cluster's ClusterVersion updates current, like the cluster-version-operator.
import { existsSync, readFileSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import pino from 'pino';
import { Agent, triggerOf } from '../agent/agent.js';
import { ClusterVersionWatch } from '../agent/clusterVersion.js';
import { RiskEvaluator } from '../agent/risks.js';
import { ClusterVersionOperator, runOperator } from '../agent/update/operator.js';
import { ReleaseVerifier } from '../agent/update/verify.js';
import { CLOCK_CONFIGMAP, FollowedClock, ScaledClock } from '../clock.js';
import { PayloadStore } from '../payload/store.js';
import { TrustStore } from '../signatures/verify.js';

export interface AgentCliOptions {
  kubeconfig?: string;
  inCluster?: boolean;
  once?: boolean;
  interval: string;
  prometheusUrl?: string;
  prometheusTokenFile?: string;
  prometheusCaFile?: string;
  caFile?: string;
  defaultUpstream?: string;
  logLevel: string;
  /** false with --no-update: only keep the update lists current. */
  update: boolean;
  payloadStore: string;
  trustKeys?: string;
  signatureStore: string[];
  workers: string;
}

export function loadKubeConfig(o: { kubeconfig?: string; inCluster?: boolean }): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  if (o.inCluster) kc.loadFromCluster();
  else if (o.kubeconfig) kc.loadFromFile(o.kubeconfig);
  else kc.loadFromDefault();
  return kc;
}

const read = (file: string | undefined, flag: string): string | undefined => {
  if (!file) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${flag}: cannot read ${file}: ${(err as Error).message}`);
  }
};

const SA = '/var/run/secrets/kubernetes.io/serviceaccount';

/** In a cluster, the defaults of the CVO: the Thanos querier, the service account's token and the service CA. */
function prometheusOptions(o: AgentCliOptions): { url?: string; tokenFile?: string; ca?: string } {
  const inCluster = (flag: string | undefined, file: string): string | undefined => flag ?? (o.inCluster && existsSync(file) ? file : undefined);
  const tokenFile = inCluster(o.prometheusTokenFile, `${SA}/token`);
  if (tokenFile) read(tokenFile, '--prometheus-token-file'); // fail early on an unreadable file
  return {
    url: o.prometheusUrl ?? (o.inCluster ? 'https://thanos-querier.openshift-monitoring.svc:9091' : undefined),
    tokenFile,
    ca: read(inCluster(o.prometheusCaFile, `${SA}/service-ca.crt`), '--prometheus-ca-file'),
  };
}

export async function agentCommand(o: AgentCliOptions): Promise<number> {
  const interval = Number(o.interval);
  if (!Number.isFinite(interval) || interval < 1) throw new Error(`--interval: '${o.interval}' is not a number of seconds`);
  const workers = Number(o.workers);
  if (!Number.isInteger(workers) || workers < 1 || workers > 64) throw new Error(`--workers: '${o.workers}' is not a whole number from 1 to 64`);
  for (const url of o.signatureStore) {
    if (!/^(https?|file):\/\//.test(url)) throw new Error(`--signature-store: '${url}' is not an http, https or file URL`);
  }
  const trust = o.trustKeys ? await TrustStore.load(o.trustKeys) : TrustStore.empty();
  const log = pino({ level: o.logLevel });
  const kc = loadKubeConfig(o);
  const agent = new Agent({
    kc,
    evaluator: new RiskEvaluator(prometheusOptions(o)),
    transport: { ca: read(o.caFile, '--ca-file') },
    defaultUpstream: o.defaultUpstream,
  });
  const pollOnce = async (): Promise<void> => {
    const r = await agent.poll();
    log.info({ retrieved: r.retrieved.status, reason: r.retrieved.reason, available: r.available, conditional: r.conditional, written: r.written }, 'poll');
    if (process.stderr.isTTY) {
      const what = r.retrieved.status === 'True' ? `${r.available} available, ${r.conditional - r.recommendedConditional} not recommended` : `${r.retrieved.reason}: ${r.retrieved.message}`;
      process.stderr.write(`${new Date().toISOString()} updates: ${what}${r.written ? '' : ' (unchanged)'}\n`);
    }
  };
  if (o.once) {
    await pollOnce();
    return 0;
  }
  let stopped = false;
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stopped = true;
      stop.abort();
    });
  }
  const watch = new ClusterVersionWatch(kc).start();
  stop.signal.addEventListener('abort', () => watch.stop());
  const updates = o.update ? executeUpdates(kc, { ...o, workers }, trust, log, stop.signal, watch) : Promise.resolve();
  while (!stopped) {
    // Read before the poll, so a change made while it runs triggers the next one.
    const before = await agent.trigger().catch(() => '');
    try {
      await pollOnce();
    } catch (err) {
      log.error({ err }, 'poll failed; will try again');
    }
    // Next poll at a random time in [interval, 2 × interval), or at once when channel, upstream, arch or
    // version change: the watch wakes the loop on a change, and a 30 s check covers a watch that is down.
    const due = Date.now() + (interval + Math.random() * interval) * 1000;
    while (!stopped && Date.now() < due) {
      let timer: NodeJS.Timeout | undefined;
      const changed = await Promise.race([new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), Math.min(30_000, due - Date.now())))), watch.next()]);
      clearTimeout(timer);
      // The watch brings the object itself; only the fallback check reads it.
      const now = changed ? triggerOf(changed) : await agent.trigger().catch(() => before);
      if (now !== before) break;
    }
  }
  await updates;
  return 0;
}

/** The update executor, on the cluster's clock (a mock cluster may run it faster than real time; read before each pass). */
async function executeUpdates(
  kc: k8s.KubeConfig,
  o: Omit<AgentCliOptions, 'workers'> & { workers: number },
  trust: TrustStore,
  log: pino.Logger,
  signal: AbortSignal,
  watch: ClusterVersionWatch,
): Promise<void> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const clock = new FollowedClock(new ScaledClock(1));
  let declared = '';
  const followClock = async (): Promise<void> => {
    const data = (await core.readNamespacedConfigMap({ ...CLOCK_CONFIGMAP }).catch(() => undefined))?.data;
    const text = JSON.stringify(data ?? {});
    if (text === declared) return;
    declared = text;
    clock.source = data ? ScaledClock.fromData(data) : new ScaledClock(1); // a real cluster declares none: real time
    if (data) log.info({ scale: (clock.source as ScaledClock).scale }, 'following the cluster\'s clock');
  };
  // Signatures are checked against real time: key expiry and revocation are facts of the world.
  const verifier = new ReleaseVerifier(trust, core, o.signatureStore);
  const payloads = new PayloadStore(o.payloadStore);
  await runOperator(() => new ClusterVersionOperator({ kc, clock, payloads, verifier, workers: o.workers, log, signal }), { clock, log, signal, beforeSync: followClock, changed: () => watch.next() });
}
