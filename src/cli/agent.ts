// `cincy agent`: keeps a cluster's ClusterVersion updates current, like the cluster-version-operator.
import { existsSync, readFileSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import pino from 'pino';
import { Agent } from '../agent/agent.js';
import { RiskEvaluator } from '../agent/risks.js';

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
  const log = pino({ level: o.logLevel });
  const agent = new Agent({
    kc: loadKubeConfig(o),
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
  process.once('SIGINT', () => (stopped = true));
  process.once('SIGTERM', () => (stopped = true));
  while (!stopped) {
    // Read before the poll, so a change made while it runs triggers the next one.
    const before = await agent.trigger().catch(() => '');
    try {
      await pollOnce();
    } catch (err) {
      log.error({ err }, 'poll failed; will try again');
    }
    // Next poll at a random time in [interval, 2 × interval), or at once when channel, upstream, arch or version change.
    const due = Date.now() + (interval + Math.random() * interval) * 1000;
    while (!stopped && Date.now() < due) {
      await new Promise((r) => setTimeout(r, Math.min(5000, interval * 250)));
      if ((await agent.trigger().catch(() => before)) !== before) break;
    }
  }
  return 0;
}
