// The simulator's commands, as `cincy` runs them in a clone of the repository (bin/cincy.js hands them over,
// routes.ts says which): the mock cluster, demo payloads and release images, seed images, and the agent on
// a mock cluster's clock. Each loads what it runs when it runs.
import { Option, type Command } from 'commander';
import type { AgentCliOptions } from 'cincy/cli/agent';
import { defineAgentCommand } from 'cincy/cli/agentCommand';
import { addPayloadCommands, payloadStoreOption, storeOption } from 'cincy/cli/payloadCommands';
import { cincyProgram, commandRunner, runProgram } from 'cincy/cli/program';
import { IMAGE_ARCHES } from '../payloads/releaseImage.js';
import type { MockClusterOptions } from './mockCluster.js';
import type { CreateOptions, PushOptions } from './payload.js';
import type { SeedPushOptions } from './seedPush.js';

export function simulatorMain(argv: string[]): Promise<number> {
  return runProgram(buildSimulatorProgram, argv);
}

/**
 * The simulator's commands, defined but not run: `simulatorMain` parses argv with it, and scripts/docs/reference.mjs
 * walks it to write docs/reference/simulator-cli.md. A command's action hands its exit code to `setCode`.
 */
export function buildSimulatorProgram(setCode: (code: number) => void = () => {}): Command {
  const run = commandRunner(setCode);
  const program = cincyProgram('the simulated cluster of cincy: a test and demo tool');

  addMockClusterCommand(program, run);
  defineAgentCommand(program)
    .option(
      '--follow-mock-clock',
      'execute updates on the simulated clock a cincy mock cluster declares (ConfigMap openshift-config/cincy-mock-clock); for the mock cluster only',
    )
    .action(
      run(async (opts: AgentCliOptions & { followMockClock?: boolean }) =>
        (await import('./agent.js')).agentOnMockClock(opts),
      ),
    );

  addDemoPayloadCommands(addPayloadCommands(program, run), run);
  addSeedCommand(program, run);
  return program;
}

type Run = ReturnType<typeof commandRunner>;

/** `cincy mock-cluster`: the simulated cluster, serving its own API or on another API server. */
function addMockClusterCommand(program: Command, run: Run): void {
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
      '--feature-set <name>',
      'the FeatureGate feature set: Default, or TechPreviewNoUpgrade (its gates on, ClusterUpdateAcceptRisks among them, and the ClusterVersion CRD with their fields)',
      'Default',
    )
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
    .option(
      '--kubeconfig <file>',
      "simulate on the API server this kubeconfig names (a real kube-apiserver with OpenShift's CRDs) instead of serving an API of its own: a new cluster's inventory is made there, then the controllers act through its API",
    )
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
}

/** `cincy payload create|push`: demo payloads, beside the product's `payload ls|extract`. */
function addDemoPayloadCommands(payload: Command, run: Run): void {
  payload
    .command('create')
    .description(
      'generate the payload of a release into the store (--version and --image, or --release from a cincy server)',
    )
    .option('--version <v>', 'the release version')
    .option('--image <pullspec>', 'the release image, pinned by digest: <repo>@sha256:<hex>')
    .option('--previous <list>', 'comma-separated versions for release-metadata previous')
    .option('--url <url>', 'errata URL for release-metadata metadata.url')
    .option('--release <v>', 'read version, image, previous and errata URL from the release record of a cincy server')
    .option('--arch <arch>', 'architecture of the release record', 'amd64')
    .addOption(
      new Option('--server <url>', 'cincy server (with --release)')
        .env('CINCY_SERVER')
        .default('http://127.0.0.1:8080'),
    )
    .addOption(storeOption())
    .action((opts: CreateOptions) => run(async () => (await import('./payload.js')).create(opts))());
  payload
    .command('push')
    .description(
      'make the release image of a payload and push it to a registry (--version, or --release from a cincy server); prints its pull spec by digest',
    )
    .option('--version <v>', 'the release version')
    .option('--previous <list>', 'comma-separated versions for release-metadata previous')
    .option('--url <url>', 'errata URL for release-metadata metadata.url')
    .option('--release <v>', 'read version, previous and errata URL from the release record of a cincy server')
    .addOption(
      new Option('--arch <arch>', 'architecture of the image (Go name), or multi for an index of images')
        .choices(['amd64', 'arm64', 's390x', 'ppc64le', 'multi'])
        .default('amd64'),
    )
    .option(
      '--arches <list>',
      `with --arch multi: the architectures of its images (default: ${IMAGE_ARCHES.join(',')})`,
    )
    .requiredOption(
      '--registry <repository>',
      'the repository to push to: [http://]HOST[:PORT]/REPOSITORY (http:// means plain HTTP)',
    )
    .option('--tag <tag>', 'the tag (default: VERSION-ARCH as release tags name it: 4.16.1-x86_64, 4.16.1-multi)')
    .option('--registry-credentials <file>', 'docker/podman config.json with registry credentials (auths)')
    .option('--registry-ca <file>', 'PEM CA bundle the registry certificate is checked against')
    .addOption(
      new Option('--server <url>', 'cincy server (with --release)')
        .env('CINCY_SERVER')
        .default('http://127.0.0.1:8080'),
    )
    .addOption(payloadStoreOption('--store', 'payload store folder the payload is also written to'))
    .option('--no-store', 'do not write the payload into the payload store')
    .action((opts: PushOptions) => run(async () => (await import('./payload.js')).push(opts))());
}

/** `cincy seed push`: the seed image of an image-based upgrade. */
function addSeedCommand(program: Command, run: Run): void {
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
}
