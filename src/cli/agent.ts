// `cincy agent`: turns flags into the agent's options and runs it (src/agent/run.ts) until a signal.
import { existsSync, readFileSync } from 'node:fs';
import pino from 'pino';
import { logDestination, type LogFormat } from './logFormat.js';
import { ACCEPT_RISKS_MODES, type AcceptRisksFeature } from '../agent/acceptRisks.js';
import type { PollResult } from '../agent/poll.js';
import { UpdatesPoller } from '../agent/poll.js';
import { riskSourceNames, riskSources } from '../agent/riskSources/sources.js';
import { RiskEvaluator } from '../agent/risks.js';
import { logPoll } from '../agent/pollLoop.js';
import { runAgent, type ExecutorClock } from '../agent/run.js';
import type { PayloadRetrieval } from '../agent/update/context.js';
import { PayloadStore } from '../payload/store.js';
import { registryAccess } from './registryFlags.js';
import { isRegistryHost } from '../registry/reference.js';
import { trustKeys } from './trustKeys.js';
import { kubeCall } from './kubeErrors.js';
import { clusterApi, loadKubeConfig, originOf } from './kubeconfig.js';
import { escapeLines } from './terminalText.js';
import { reportSender } from './report.js';
import { runReporter, type ReporterOptions } from '../reporter/reporter.js';
import { systemClock } from '../clock.js';

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
  logFormat?: LogFormat;
  /** false with --no-update: only keep the update lists current. */
  update: boolean;
  payloadStore: string;
  payloadRetrieval?: string;
  acceptRisks: string;
  riskSources: string;
  registryCredentials?: string;
  registryCa?: string;
  registryPlainHttp: string[];
  trustKeys?: string;
  signatureStore: string[];
  workers: string;
  reportTo?: string;
  reportTokenFile?: string;
}

const read = (file: string | undefined, flag: string): string | undefined => {
  if (!file) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${flag}: cannot read ${file}: ${(err as Error).message}`);
  }
};

/** How often the agent reads what it reports, and the longest between two reports: `cincy report`'s defaults. */
const REPORT_CHECK_MS = 10_000;
const REPORT_INTERVAL_MS = 5 * 60_000;

const SA = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Where Prometheus is and how it is asked; in a cluster, the CVO's defaults: the Thanos querier, the service account's token, the service CA. */
function prometheusAccess(o: AgentCliOptions): { url?: string; tokenFile?: string; caFile?: string } {
  const inCluster = (flag: string | undefined, file: string): string | undefined =>
    flag ?? (o.inCluster && existsSync(file) ? file : undefined);
  const tokenFile = inCluster(o.prometheusTokenFile, `${SA}/token`);
  if (tokenFile) read(tokenFile, '--prometheus-token-file'); // fail early on an unreadable file
  return {
    url: o.prometheusUrl ?? (o.inCluster ? 'https://thanos-querier.openshift-monitoring.svc:9091' : undefined),
    tokenFile,
    caFile: inCluster(o.prometheusCaFile, `${SA}/service-ca.crt`),
  };
}

/** The PromQL evaluator's options: the CA read once, here, so a bad file fails at start. */
function prometheusOptions(o: AgentCliOptions): { url?: string; tokenFile?: string; ca?: string } {
  const { url, tokenFile, caFile } = prometheusAccess(o);
  return { url, tokenFile, ca: read(caFile, '--prometheus-ca-file') };
}

/** A line per poll on a terminal. */
function reportToTerminal(r: PollResult): void {
  if (!process.stderr.isTTY) return;
  const { status, reason, message } = r.retrieved;
  const what =
    status === 'True'
      ? `${r.available} available, ${r.conditional - r.recommendedConditional} not recommended`
      : `${reason}: ${message}`;
  process.stderr.write(escapeLines(`${new Date().toISOString()} updates: ${what}${r.written ? '' : ' (unchanged)'}\n`));
}

/**
 * How payloads reach the store, from --payload-retrieval and the registry flags: a Job on the agent's node
 * in the cluster, the agent's own pull outside it.
 */
export function payloadRetrieval(o: AgentCliOptions): PayloadRetrieval {
  const how = o.payloadRetrieval ?? (o.inCluster ? 'job' : 'pull');
  if (how === 'job') {
    const nodeName = process.env.NODE_NAME?.trim();
    return { kind: 'job', ...(nodeName && { nodeName }) };
  }
  if (how !== 'pull') throw new Error(`--payload-retrieval: '${how}' is neither job nor pull`);
  const plainHttp = new Set(
    o.registryPlainHttp
      .flatMap((v) => v.split(','))
      .map((h) => h.trim())
      .filter(Boolean),
  );
  for (const h of plainHttp)
    if (!isRegistryHost(h))
      throw new Error(`--registry-plain-http: '${h}' is not HOST[:PORT] (as pull specs name a registry, no scheme)`);
  return { kind: 'pull', registry: { ...registryAccess(o), plainHttp } };
}

/** The field manager of everything the agent writes. */
export const AGENT_FIELD_MANAGER = 'cincy-agent';

/** Runs the agent as its flags say; `executorClock` is for a tool that runs it on a simulated cluster's time. */
export async function agentCommand(o: AgentCliOptions, executorClock?: ExecutorClock): Promise<number> {
  const interval = Number(o.interval);
  if (!Number.isFinite(interval) || interval < 1)
    throw new Error(`--interval: '${o.interval}' is not a number of seconds`);
  const workers = Number(o.workers);
  if (!Number.isInteger(workers) || workers < 1 || workers > 64)
    throw new Error(`--workers: '${o.workers}' is not a whole number from 1 to 64`);
  for (const url of o.signatureStore) {
    if (!/^(https?|file):\/\//.test(url))
      throw new Error(`--signature-store: '${url}' is not an http, https or file URL`);
  }
  const retrieval = payloadRetrieval(o);
  if (!(ACCEPT_RISKS_MODES as readonly string[]).includes(o.acceptRisks))
    throw new Error(`--accept-risks: '${o.acceptRisks}' is none of ${ACCEPT_RISKS_MODES.join(', ')}`);
  const names = riskSourceNames(o.riskSources);
  const trust = await trustKeys(o.trustKeys);
  const log = pino({ level: o.logLevel }, logDestination(o.logFormat ?? 'auto'));
  const kc = loadKubeConfig(o);
  const api = clusterApi(kc, AGENT_FIELD_MANAGER);
  const { url, tokenFile, caFile } = prometheusAccess(o);
  if (names.includes('Alert') && !url)
    log.warn('the Alert risk source needs a Prometheus (--prometheus-url): alerts are not read');
  const reports = reportsOf(o);
  const poller = {
    riskSources: riskSources(names, api, url ? { url, tokenFile, caFile } : undefined),
    evaluator: new RiskEvaluator(prometheusOptions(o)),
    transport: { ca: read(o.caFile, '--ca-file') },
    defaultUpstream: o.defaultUpstream,
    acceptRisks: o.acceptRisks as AcceptRisksFeature,
  };
  if (o.once) {
    // A single pass: the risk evaluations over the PromQL rate are waited for, so what it writes is final.
    const once = {
      ...poller,
      evaluator: new RiskEvaluator(prometheusOptions(o), Date.now, { waitWhenThrottled: true }),
    };
    const r = await kubeCall(originOf(kc), () => new UpdatesPoller({ api, ...once }).poll());
    logPoll(log, r);
    reportToTerminal(r);
    if (!reports) return 0;
    const taken = await runReporter({
      ...reports,
      api,
      log: (line) => log.info(line),
      signal: new AbortController().signal,
      once: true,
    });
    return taken === 0 ? 1 : 0;
  }
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  // The cluster reports itself to the fleet beside the polls, as `cincy report` does (reporter.ts).
  const reporting = reports && runReporter({ ...reports, api, log: (line) => log.info(line), signal: stop.signal });
  await runAgent({
    api,
    log,
    signal: stop.signal,
    poller,
    intervalMs: interval * 1000,
    update: o.update
      ? { payloads: new PayloadStore(o.payloadStore), retrieval, trust, signatureStores: o.signatureStore, workers }
      : undefined,
    executorClock,
    report: reportToTerminal,
  });
  stop.abort();
  await reporting;
  return 0;
}

/** With --report-to and --report-token-file, how the agent reports the cluster to the fleet; else nothing. */
function reportsOf(o: AgentCliOptions): Omit<ReporterOptions, 'api' | 'log' | 'signal'> | undefined {
  if (o.reportTo === undefined && o.reportTokenFile === undefined) return undefined;
  if (o.reportTo === undefined || o.reportTokenFile === undefined)
    throw new Error('--report-to and --report-token-file go together');
  if (!/^https?:\/\//.test(o.reportTo)) throw new Error(`--report-to: '${o.reportTo}' is not an http or https URL`);
  const target = { server: o.reportTo, certificateAuthority: o.caFile, tokenFile: o.reportTokenFile };
  return {
    send: reportSender(target, '--report-token-file'),
    clock: systemClock,
    checkMs: REPORT_CHECK_MS,
    intervalMs: REPORT_INTERVAL_MS,
  };
}
