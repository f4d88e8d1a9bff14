// The `cincy` command line: one subcommand per file of this folder. Each command loads what it runs
// when it runs: defining every command (for parsing and --help) loads commander and little else.
import { Command, CommanderError, Option } from 'commander';
import { BUNDLED_GRAPH_DATA, ConfigError, SETTINGS, type Setting } from '../settings.js';
import { PACKAGE_VERSION } from '../version.js';
import { addAdminCommands } from './admin.js';
import { addChannelCommands } from './channels.js';
import { addReleaseCommands } from './releases.js';
import { checkRequiredAfterUnknown } from './requiredOptions.js';
import { addSignatureCommands } from './signatures.js';
import { addPathCommands } from './paths.js';
import type { TokenOptions } from './token.js';
import type { AgentCliOptions } from './agent.js';
import { addPayloadCommands, payloadStoreOption } from './payloadCommands.js';
import type { MockClusterOptions } from './mockCluster.js';
import type { SeedPushOptions } from './seedPush.js';
import { addClusterCommands } from './clusterCommands.js';

export async function main(argv: string[]): Promise<number> {
  let code = 0;
  const program = buildProgram((c) => {
    code = c;
  });
  checkRequiredAfterUnknown(program);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof ConfigError) {
      process.stderr.write(`cincy: invalid configuration:\n${err.message}\n`);
      return 2;
    }
    throw err;
  }
  return code;
}

/**
 * Every command of `cincy`, defined but not run: `main` parses argv with it, and
 * scripts/docs/reference.mjs walks it to write docs/reference/cli.md. A command's action hands its
 * exit code to `setCode`.
 */
export function buildProgram(setCode: (code: number) => void = () => {}): Command {
  const run =
    <A extends unknown[]>(f: (...args: A) => Promise<number> | number) =>
    async (...args: A) => {
      setCode(await f(...args));
    };
  const program = new Command('cincy')
    .description('Cincinnati update graph server for OpenShift-style clusters')
    .version(PACKAGE_VERSION)
    .enablePositionalOptions() // `cincy mock-cluster --version 4.16.3` is the subcommand's option
    .exitOverride()
    .showHelpAfterError();

  const serveCmd = program
    .command('serve')
    .description('import the graph-data tree if its content is new, build the graph and serve it');
  for (const s of Object.values(SETTINGS) as Setting[]) {
    const boolean = s.kind === 'switch';
    const shown =
      s.default === undefined || boolean
        ? ''
        : ` (default: ${String(s.default).replace(BUNDLED_GRAPH_DATA, 'the bundled graph-data/')})`;
    serveCmd.addOption(new Option(boolean ? s.flag : `${s.flag} <value>`, `${s.description} [env ${s.env}]${shown}`));
  }
  serveCmd.action(run(async () => (await import('./serve.js')).serve(serveCmd.opts())));

  const importCmd = program
    .command('import')
    .description(
      'import a graph-data tree (one transaction, upsert) and/or scrape registry sources into the store, once',
    )
    .option('--graph-data <path>', 'graph-data directory or .tar.gz')
    .addOption(dbOption())
    .option('--prune', 'also remove what the tree does not mention')
    .option(
      '--trust-keys <dir>',
      "verify the tree's signatures against these keys (JWKS *.json, OpenPGP *.asc); refused ones are not stored",
    );
  // The registry flags of serve, with the same meaning and checks.
  const registryKeys = [
    'releases',
    'releasesTagFilter',
    'graphDataImage',
    'registryCredentials',
    'registryCa',
    'registryConcurrency',
    'registryTimeout',
  ] as const;
  for (const key of registryKeys) {
    const s: Setting = SETTINGS[key];
    importCmd.addOption(new Option(`${s.flag} <value>`, s.description));
  }
  importCmd.action(
    run(async (opts: Record<string, string | boolean | undefined>) => {
      const { resolveServeConfig } = await import('../config.js');
      const { importCommand } = await import('./importTree.js');
      const registry = resolveServeConfig(
        Object.fromEntries(registryKeys.map((k) => [k, opts[k]]).filter(([, v]) => v !== undefined)),
        {},
      );
      return importCommand({
        ...Object.fromEntries(registryKeys.map((k) => [k, registry[k]])),
        graphData: opts.graphData as string | undefined,
        db: opts.db as string,
        prune: opts.prune === true,
        trustKeys: opts.trustKeys as string | undefined,
      });
    }),
  );

  program
    .command('validate')
    .description('list every problem of a graph-data tree as "file: field: message"; exit 1 if any')
    .argument('<dir>', 'graph-data directory or .tar.gz')
    .action(run(async (dir: string) => (await import('./importTree.js')).validateCommand(dir)));

  program
    .command('export')
    .description('write the store back as a graph-data tree')
    .addOption(dbOption())
    .option('--force', 'write into a folder that is not empty')
    .argument('<dir>', 'folder to write')
    .action(
      run(async (dir: string, opts: { db: string; force?: boolean }) =>
        (await import('./exportTree.js')).exportCommand({ ...opts, dir }),
      ),
    );

  program
    .command('token')
    .description('admin tokens')
    .command('create')
    .description('print an admin token (JWT) for local use')
    .option('--admin-jwt-secret-file <file>', 'the HS256 secret file the server uses')
    .option(
      '--private-key <file>',
      "a private JWK (RS256, ES256 or EdDSA) whose public key is in the server's --admin-jwks",
    )
    .requiredOption('--scope <list>', 'comma- or space-separated, from releases:write, channels:write, risks:write')
    .option('--ttl <duration>', 'lifetime: 90s, 30m, 1h, 7d; at most 366d, the longest the server accepts', '1h')
    .option('--subject <name>', 'who the token speaks for (the audit actor)', process.env.USER ?? 'admin')
    .option('--issuer <iss>', 'iss claim', 'cincy')
    .option('--audience <aud>', 'aud claim', 'cincy-admin')
    .action(
      run(async (opts: TokenOptions) => {
        const { createToken } = await import('./token.js');
        process.stdout.write(`${await createToken(opts)}\n`);
        return 0;
      }),
    );

  addReleaseCommands(program, (f) => run(f));
  addChannelCommands(program, (f) => run(f));
  addAdminCommands(program, (f) => run(f));
  addSignatureCommands(program, (f) => run(f));
  addPathCommands(program, (f) => run(f));

  program
    .command('mock-cluster')
    .description(
      'start a cluster that speaks the Kubernetes API (ClusterVersion, ClusterOperators, nodes, pools…) over HTTPS with its own CA (openssl), state persisted',
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0: any free port)', '6443')
    .option('--state <file>', 'JSON file the state is kept in (restart and nothing is lost)')
    .option('--version <v>', 'the version the cluster runs', '4.16.3')
    .option('--installed-version <v>', 'the version the cluster was installed at (history)')
    .option('--channel <name>', 'spec.channel of the ClusterVersion')
    .option('--arch <arch>', 'node architecture, or multi', 'amd64')
    .option('--upstream <url>', 'spec.upstream of the ClusterVersion')
    .option('--image <pullspec>', 'the release image the cluster runs')
    .option('--platform <name>', 'infrastructure platform reported in metrics', 'AWS')
    .option(
      '--rhel-workers <n>',
      'how many of the 3 workers run RHEL (their kubelet is updated by other means: annotate cincy.mock/rhel-kubelet=<version>)',
      '0',
    )
    .option(
      '--single-node',
      'a single-node cluster: one node with both roles, with the Lifecycle Agent (ImageBasedUpgrade `upgrade`) and OADP; host data in ConfigMap openshift-lifecycle-agent/cincy-mock-host',
    )
    .option(
      '--workload-locks <controllers>',
      'Mirantis LCM node maintenance: simulated application controllers (openstack,ceph) with their ClusterWorkloadLock and NodeWorkloadLocks; updates then wait on the locks',
    )
    .option('--token <token>', 'bearer token clients must send (default: random, kept next to --state)')
    .option('--kubeconfig-out <file>', 'write a kubeconfig for this cluster')
    .option(
      '--plain-http',
      'serve plain HTTP instead of HTTPS (kubectl and client-go send no credentials over it; client-node does)',
    )
    .option('--cert-dir <dir>', 'where the CA and certificate are kept (default: next to --state)')
    .option(
      '--time-scale <n>',
      'simulated seconds per real second (the clock is kept in ConfigMap openshift-config/cincy-mock-clock)',
      '1',
    )
    .addOption(
      payloadStoreOption(
        '--payload-store',
        'where the payload Job looks for release payloads, and puts those it pulls from a registry',
      ),
    )
    .option(
      '--registry-credentials <file>',
      "docker/podman config.json with the credentials the payload Job pulls release images with (auths), and the host seed images: the cluster's pull secret",
    )
    .option('--registry-ca <file>', 'PEM CA bundle the registry certificates are checked against')
    .option(
      '--registry-plain-http <host:port>',
      'a registry the payload Job and the host reach over plain HTTP (repeatable, or a comma list), as insecure registries of image.config.openshift.io',
      (v: string, all: string[]) => [...all, v],
      [] as string[],
    )
    .option(
      '--scenario <file>',
      'YAML: operators {<co>: {duration, behavior: normal|degraded|unavailable}}, nodes {<node>: {drain, update, reboot…}}, nodeDefaults, platform…',
    )
    .option('--reset', 'discard the state file and start a new cluster from the flags')
    .action(
      run(async (opts: MockClusterOptions, cmd: Command) =>
        (await import('./mockCluster.js')).mockClusterCommand({
          ...opts,
          // Flags given, not defaults: a saved cluster is checked against them.
          given: new Set(
            cmd.options.map((x) => x.attributeName()).filter((a) => cmd.getOptionValueSource(a) === 'cli'),
          ),
        }),
      ),
    );

  program
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
    .option('--ca-file <file>', 'CA bundle the update service certificate is checked against')
    .option(
      '--default-upstream <url>',
      'used when spec.upstream is empty',
      'https://api.openshift.com/api/upgrades_info/v1/graph',
    )
    .option('--log-level <level>', 'log level', 'info')
    .option('--no-update', 'only keep the update lists current; never execute spec.desiredUpdate')
    .addOption(
      payloadStoreOption('--payload-store', "where release payloads are extracted to (the Job's shared volume)"),
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
    .option('--workers <n>', 'manifests of different components applied at once', '16')
    .option(
      '--follow-mock-clock',
      'execute updates on the simulated clock a cincy mock cluster declares (ConfigMap openshift-config/cincy-mock-clock); for the mock cluster only',
    )
    .action(run(async (opts: AgentCliOptions) => (await import('./agent.js')).agentCommand(opts)));

  // The Kubernetes client alone is about 70 MB of a process, and loads only for the commands that use it.
  addClusterCommands(program, (f) => run(f));
  addPayloadCommands(program, (f) => run(f));

  program
    .command('seed')
    .description('seed images of image-based upgrades (the Lifecycle Agent on single-node clusters)')
    .command('push')
    .description(
      'make the seed image of a release, as lca-cli builds one, and push it to a registry; prints its pull spec by digest',
    )
    .requiredOption('--version <v>', 'the release the seed cluster runs')
    .requiredOption(
      '--registry <repository>',
      'the repository to push to: [http://]HOST[:PORT]/REPOSITORY (http:// means plain HTTP)',
    )
    .option('--tag <tag>', 'the tag (default: the version)')
    .option('--registry-credentials <file>', 'docker/podman config.json with registry credentials (auths)')
    .option('--registry-ca <file>', 'PEM CA bundle the registry certificate is checked against')
    .action(run(async (opts: SeedPushOptions) => (await import('./seedPush.js')).seedPush(opts)));

  program
    .command('openapi')
    .description('print the OpenAPI document the server serves at /openapi')
    .action(run(async () => (await import('./openapi.js')).openapiCommand()));

  return program;
}

/**
 * --db of the one-shot commands: a SQLite file or a postgres:// URL, also from CINCY_DB, as serve takes
 * it (a password in the environment stays out of the process list).
 */
function dbOption(): Option {
  return new Option('--db <file|url>', 'SQLite database file, or a postgres:// URL')
    .env('CINCY_DB')
    .makeOptionMandatory();
}
