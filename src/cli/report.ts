// `cincy report`: a cluster reports itself to the update service (POST /api/v1/fleet/reports) with a
// token bound to its id (cincy token create --scope fleet:report --cluster-id ID). It reads the cluster
// with read-only credentials (deploy/kubernetes/reporter.yaml grants them) and runs until a signal, or
// once. The loop is src/reporter/reporter.ts.
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { systemClock } from '../clock.js';
import { parseSingleUnitDuration } from '../duration.js';
import { runReporter, type ReportBody } from '../reporter/reporter.js';
import { callWithStatus } from './admin.js';
import { serverOptions, type ServerTarget } from './serverConnection.js';

/** How long a report may wait for the service's answer. */
const SEND_TIMEOUT_MS = 30_000;

interface ReportCliOptions {
  kubeconfig?: string;
  inCluster?: boolean;
  server: string;
  certificateAuthority?: string;
  token?: string;
  tokenFile?: string;
  interval: string;
  check: string;
  once?: boolean;
}

export function addReportCommand(program: Command, run: (f: () => Promise<number>) => () => Promise<void>): void {
  const command = program
    .command('report')
    .description(
      "report a cluster's ClusterVersion and ClusterOperators to the update service's fleet, with a token bound to the cluster (scope fleet:report)",
    )
    .option(
      '--kubeconfig <file>',
      'kubeconfig of the cluster, read-only suffices (default: $KUBECONFIG or ~/.kube/config)',
    )
    .option('--in-cluster', 'use the service account of the pod it runs in');
  serverOptions(command, 'the update service')
    .addOption(new Option('--token <jwt>', 'the report token (prefer --token-file)').env('CINCY_TOKEN'))
    .option('--token-file <file>', 'file holding the report token, read before each report (so it may be rotated)')
    .option('--interval <duration>', 'report at least this often when nothing changes: 90s, 5m, 1h', '5m')
    .option('--check <duration>', 'read the cluster this often, reporting at once what changed', '10s')
    .option('--once', 'report once and exit (1 if the report was not taken)')
    .action((opts: ReportCliOptions) => run(() => reportCommand(opts))());
}

async function reportCommand(opts: ReportCliOptions): Promise<number> {
  const intervalMs = durationFlag('--interval', opts.interval);
  const checkMs = durationFlag('--check', opts.check);
  if (opts.token && opts.tokenFile) throw new Error('give either --token (CINCY_TOKEN) or --token-file, not both');
  if (!opts.token && !opts.tokenFile) throw new Error('--token-file (or --token, CINCY_TOKEN) is required');
  const send = reportSender(opts, '--token-file');
  // The Kubernetes client loads with this command, not with every command's definition.
  const { api } = (await import('./kubeconfig.js')).connectCluster(opts);
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  const taken = await runReporter({
    api,
    send,
    clock: systemClock,
    checkMs,
    intervalMs,
    log: (line) => process.stdout.write(`${new Date().toISOString()} ${line}\n`),
    signal: stop.signal,
    once: opts.once,
  });
  return opts.once && taken === 0 ? 1 : 0;
}

/**
 * How a report reaches the server: POST /api/v1/fleet/reports with the token (the file read again before
 * each report, so it may be rotated; an unreadable one fails now, naming `tokenFlag`), given up after
 * SEND_TIMEOUT_MS. `cincy report` and `cincy agent --report-to` send alike.
 */
export function reportSender(
  target: ServerTarget & { token?: string; tokenFile?: string },
  tokenFlag: string,
): (body: ReportBody, signal: AbortSignal) => Promise<string> {
  tokenOf(target, tokenFlag);
  return async (body, signal) => {
    const { body: answer } = await callWithStatus(
      { server: target.server, certificateAuthority: target.certificateAuthority, token: tokenOf(target, tokenFlag) },
      'POST',
      '/api/v1/fleet/reports',
      body,
      'application/json',
      { signal, timeoutMs: SEND_TIMEOUT_MS },
    );
    return reportLine(answer as Answer);
  };
}

interface Answer {
  clusterID: string;
  update?: { from: string; to: string; state: string; reason?: string };
}

function reportLine(a: Answer): string {
  const u = a.update;
  return `reported ${a.clusterID}${u ? `: update ${u.from} → ${u.to} ${u.state}${u.reason ? ` (${u.reason})` : ''}` : ''}`;
}

function tokenOf(opts: { token?: string; tokenFile?: string }, flag: string): string {
  if (!opts.tokenFile) return opts.token!;
  let text: string;
  try {
    text = readFileSync(opts.tokenFile, 'utf8').trim();
  } catch (err) {
    throw new Error(`${flag}: cannot read ${opts.tokenFile}: ${(err as Error).message}`);
  }
  if (!text) throw new Error(`${flag}: ${opts.tokenFile} is empty`);
  return text;
}

function durationFlag(flag: string, text: string): number {
  const ms = parseSingleUnitDuration(text);
  if (!ms) throw new Error(`${flag}: '${text}' is not a duration such as 10s, 5m or 1h`);
  return ms;
}
