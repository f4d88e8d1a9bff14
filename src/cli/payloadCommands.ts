// The payload commands (create, push, ls, extract) and their options; their work is payload.ts's,
// loaded when one of them runs.
import { Command, Option } from 'commander';
import { DEFAULT_PAYLOAD_STORE, IMAGE_ARCHES } from '../payload/defaults.js';
import type { CreateOptions, PushOptions } from './payload.js';

/** The payload store folder, one setting for every command that reads or writes payloads. */
export const payloadStoreOption = (flag: string, description: string): Option =>
  new Option(`${flag} <dir>`, description).env('CINCY_PAYLOAD_STORE').default(DEFAULT_PAYLOAD_STORE);
const storeOption = (): Option => payloadStoreOption('--store', 'payload store folder');

export function addPayloadCommands(program: Command, run: (f: () => Promise<number>) => () => Promise<void>): void {
  const payload = program
    .command('payload')
    .description('release payloads: the manifests an update applies, kept in a payload store folder by image digest');
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
  payload
    .command('ls')
    .description('list the payloads of the store')
    .addOption(storeOption())
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
    .action((opts: { store: string; output: string }) => run(async () => (await import('./payload.js')).list(opts))());
  payload
    .command('extract')
    .description('copy the release-manifests of a stored payload to a folder, as oc adm release extract --to does')
    .argument('<image>', 'release image pull spec by digest')
    .requiredOption('--to <dir>', 'folder to write the files to')
    .addOption(storeOption())
    .action((image: string, opts: { to: string; store: string }) =>
      run(async () => (await import('./payload.js')).extract(image, opts))(),
    );
}
