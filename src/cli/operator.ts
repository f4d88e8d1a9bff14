// `cincy operator`: reconciles UpdateService resources (the cincinnati-operator's API) into Deployments of
// `cincy serve`, until a signal; `--once` makes one pass and exits 1 when any UpdateService failed.
import type { Command } from 'commander';
import { Option } from 'commander';
import { RESOURCES } from '../cluster/resources.js';
import type { commandRunner } from './program.js';
import type { LogFormat } from './logFormat.js';

export interface OperatorCliOptions {
  kubeconfig?: string;
  inCluster?: boolean;
  namespace?: string;
  operandImage?: string;
  once?: boolean;
  resync: string;
  logLevel: string;
  logFormat: LogFormat;
}

/** The field manager of everything the operator writes. */
export const OPERATOR_FIELD_MANAGER = 'cincy-operator';

export function addOperatorCommand(program: Command, run: ReturnType<typeof commandRunner>): void {
  program
    .command('operator')
    .description(
      'reconcile UpdateService resources (updateservice.operator.openshift.io/v1, as oc-mirror writes them) into cincy Deployments, Services, PodDisruptionBudgets and Routes, with their status',
    )
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: $KUBECONFIG or ~/.kube/config)')
    .option('--in-cluster', 'use the service account of the pod it runs in')
    .option('--namespace <name>', "only this namespace's UpdateServices (default: every namespace)")
    .addOption(
      new Option('--operand-image <image>', 'the cincy image the Deployments run').env('RELATED_IMAGE_OPERAND'),
    )
    .option('--once', 'one pass over every UpdateService, then exit (1 when one failed)')
    .option('--resync <seconds>', 'a pass at least this often, besides the one every change brings', '600')
    .option('--log-level <level>', 'log level', 'info')
    .addOption(
      new Option('--log-format <format>', 'auto (text on a terminal, JSON lines otherwise), json or text')
        .choices(['auto', 'json', 'text'])
        .default('auto'),
    )
    .action(run(async (o: OperatorCliOptions) => operatorCommand(o)));
}

async function operatorCommand(o: OperatorCliOptions): Promise<number> {
  const resync = Number(o.resync);
  if (!Number.isFinite(resync) || resync < 1) throw new Error(`--resync: '${o.resync}' is not a number of seconds`);
  if (!o.operandImage?.trim())
    throw new Error('--operand-image (RELATED_IMAGE_OPERAND): the cincy image the Deployments run is required');
  const [{ default: pino }, { logDestination }, { clusterApi, loadKubeConfig, originOf }, { kubeCall }, controller] =
    await Promise.all([
      import('pino'),
      import('./logFormat.js'),
      import('./kubeconfig.js'),
      import('./kubeErrors.js'),
      import('../operator/controller.js'),
    ]);
  const log = pino({ level: o.logLevel }, logDestination(o.logFormat));
  const kc = loadKubeConfig(o);
  const api = clusterApi(kc, OPERATOR_FIELD_MANAGER);
  const options = {
    image: o.operandImage.trim(),
    ...(o.namespace && { namespace: o.namespace }),
    resyncMs: resync * 1000,
    log,
  };
  if (o.once) return (await kubeCall(originOf(kc), () => controller.reconcileAll(api, options))) ? 1 : 0;
  // The first list says at once when the cluster cannot be reached or serves no UpdateService.
  await kubeCall(originOf(kc), () =>
    api.list(RESOURCES.updateServices, { ...(o.namespace && { namespace: o.namespace }) }),
  );
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  log.info({ namespace: o.namespace ?? '(all)', image: options.image }, 'operator started');
  await controller.runOperator(api, options, stop.signal);
  return 0;
}
