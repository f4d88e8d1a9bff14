// The `agent` command's options, defined once: the command line adds its action, and a tool that runs the
// agent another way (the simulator, on a simulated cluster's clock) adds its own.
import { ALL_RISK_SOURCES } from '../agent/riskSources/names.js';
import { Option, type Command } from 'commander';
import { payloadStoreOption } from './payloadCommands.js';

export function defineAgentCommand(program: Command): Command {
  return program
    .command('agent')
    .description(
      "keep a cluster's ClusterVersion availableUpdates, conditionalUpdates and RetrievedUpdates current, as the cluster-version-operator does",
    )
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: $KUBECONFIG or ~/.kube/config)')
    .option('--in-cluster', 'use the service account of the pod it runs in')
    .option('--once', 'poll once and exit')
    .option('--interval <seconds>', 'polls come at a random time in [interval, 2 × interval)', '120')
    .option(
      '--prometheus-url <url>',
      'Prometheus (or Thanos querier) for PromQL risks (in cluster: https://thanos-querier.openshift-monitoring.svc:9091)',
    )
    .option(
      '--prometheus-token-file <file>',
      "bearer token for Prometheus, read before each query (in cluster: the service account's)",
    )
    .option('--prometheus-ca-file <file>', 'CA bundle of Prometheus (in cluster: the service CA)')
    .option('--ca-file <file>', 'CA bundle the update service certificate is checked against (and --report-to)')
    .option(
      '--report-to <url>',
      'a cincy server the cluster reports its ClusterVersion and ClusterOperators to, as `cincy report` does (with --report-token-file)',
    )
    .option(
      '--report-token-file <file>',
      "file holding the cluster's report token (scope fleet:report, bound to its id), read before each report",
    )
    .option(
      '--default-upstream <url>',
      'used when spec.upstream is empty',
      'https://api.openshift.com/api/upgrades_info/v1/graph',
    )
    .option(
      '--accept-risks <mode>',
      'the accept-risks API (spec.desiredUpdate.acceptRisks, status.conditionalUpdateRisks, riskNames): auto follows the FeatureGate cluster (ClusterUpdateAcceptRisks for the running version, off without one), or enabled, disabled',
      'auto',
    )
    .option(
      '--risk-sources <names>',
      `risks besides the update service's, merged into the updates when the accept-risks API is on, as the newest CVO does: Alert (critical, PodDisruptionBudget, image-pull, node and precheck alerts firing, from --prometheus-url), AdminAck (admin-gates not acknowledged), ClusterOperatorUpgradeable (Upgradeable=False); a comma list, or none`,
      ALL_RISK_SOURCES,
    )
    .option('--log-level <level>', 'log level', 'info')
    .addOption(
      new Option('--log-format <format>', 'auto (text on a terminal, JSON lines otherwise), json or text')
        .choices(['auto', 'json', 'text'])
        .default('auto'),
    )
    .option('--no-update', 'only keep the update lists current; never execute spec.desiredUpdate')
    .addOption(
      payloadStoreOption('--payload-store', "where release payloads are extracted to (the Job's shared volume)"),
    )
    .option(
      '--payload-retrieval <how>',
      "job: a Job on the agent's node ($NODE_NAME) moves the payload to the host folder /etc/cvo/updatepayloads, which the agent mounts as --payload-store (the CVO's way, for an agent in the cluster); pull: the agent pulls the release image from its registry itself (outside the cluster) (default: job with --in-cluster, else pull)",
    )
    .option('--registry-credentials <file>', 'docker/podman config.json with credentials for pulling release images')
    .option('--registry-ca <file>', 'PEM CA bundle registry certificates are checked against (pulling release images)')
    .option(
      '--registry-plain-http <host:port>',
      'a registry reached over plain HTTP when pulling release images (repeatable, or a comma list)',
      (v: string, all: string[]) => [...all, v],
      [] as string[],
    )
    .option(
      '--trust-keys <dir>',
      'keys release signatures are verified against (JWKS *.json, OpenPGP *.asc); without them an update needs force',
    )
    .option(
      '--signature-store <url>',
      'signature store base URL (repeatable), after spec.signatureStores',
      (v: string, all: string[]) => [...all, v],
      [] as string[],
    )
    .option('--workers <n>', 'manifests of different components applied at once', '16');
}
