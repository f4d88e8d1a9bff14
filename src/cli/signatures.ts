// Signature commands and their options: make keys (JWK or OpenPGP), sign a payload digest, upload a
// signature, and print the ConfigMap a disconnected cluster needs to verify a release against this
// service's signature store. Their work is signing.ts's, loaded when one of them runs.
import { serverOptions } from './serverConnection.js';
import { writeFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../signatures/algorithms.js';
import { client, type ClientOptions } from './admin.js';

export function addSignatureCommands(program: Command, run: (f: () => Promise<number>) => () => Promise<void>): void {
  program
    .command('keys')
    .description('signing keys')
    .command('generate')
    .description(
      'make a signing key pair: <kid>.private.jwk.json (for cincy sign) and <kid>.jwks.json (for --trust-keys); ' +
        'with --openpgp <kid>.private.asc and <kid>.asc, the kind of key clusters verify releases with',
    )
    .addOption(
      new Option('--alg <alg>', 'algorithm (OpenPGP: RS256 gives RSA 4096, EdDSA Ed25519)').choices([
        ...SIGNING_ALGORITHMS,
      ]),
    )
    .option('--openpgp', 'an OpenPGP key pair (default algorithm RSA 4096, as OpenShift signs with)')
    .option('--kid <id>', 'key id (OpenPGP: the user ID)', `cincy-${new Date().toISOString().slice(0, 10)}`)
    .requiredOption('--out <dir>', 'folder to write the two files to')
    .action((opts: { alg?: SigningAlgorithm; kid: string; out: string; openpgp?: boolean }) =>
      run(async () => {
        const signing = await import('./signing.js');
        if (opts.openpgp) {
          const r = await signing.generateOpenpgpKeys({ ...opts, alg: opts.alg ?? 'RS256' });
          process.stdout.write(
            `private key: ${r.privateFile}\npublic key: ${r.publicFile}\nfingerprint: ${r.fingerprint}\n`,
          );
        } else {
          const r = await signing.generateKeys({ ...opts, alg: opts.alg ?? 'EdDSA' });
          process.stdout.write(`private key: ${r.privateFile}\npublic JWKS: ${r.jwksFile}\n`);
        }
        return 0;
      })(),
    );

  program
    .command('sign')
    .description(
      'sign a release payload: an OpenPGP signed message with an OpenPGP key (what clusters verify), a JWS with a JWK',
    )
    .requiredOption('--key <file>', 'private key of cincy keys generate: <kid>.private.asc or <kid>.private.jwk.json')
    .requiredOption('--payload <pullspec>', 'the release image by digest: registry/repo@sha256:<hex>')
    .option('--out <file>', 'write here instead of standard output (an OpenPGP signature is binary)')
    .action((opts: { key: string; payload: string; out?: string }) =>
      run(async () => {
        const { bytes, binary } = await (await import('./signing.js')).signWithKeyFile(opts.key, opts.payload);
        if (opts.out) writeFileSync(opts.out, bytes);
        else if (binary && process.stdout.isTTY)
          throw new Error('an OpenPGP signature is binary: give --out <file> or redirect standard output');
        else process.stdout.write(binary ? bytes : `${Buffer.from(bytes).toString('utf8')}\n`);
        return 0;
      })(),
    );

  const signatures = program.command('signatures').alias('signature').description('release signatures');
  client(
    signatures
      .command('add')
      .description("upload a signature of a release's payload; the server verifies it against its --trust-keys")
      .argument('<version>')
      .argument('<file>', 'the signature: an OpenPGP signed message or a JWS (cincy sign)')
      .option('--arch <arch>', 'architecture of the version', 'amd64'),
  ).action((version: string, file: string, opts: ClientOptions & { arch: string }) =>
    run(async () => (await import('./signing.js')).uploadSignature(version, file, opts))(),
  );
  client(
    signatures
      .command('import')
      .description(
        'upload the signatures of ConfigMaps as oc-mirror writes them (label release.openshift.io/verification-signatures; ' +
          'YAML or JSON, a List or several documents) to the releases of their digests; the server verifies each',
      )
      .argument('<file...>', 'ConfigMap files'),
  ).action((files: string[], opts: ClientOptions) =>
    run(async () => (await import('./signatureImport.js')).importSignatureConfigMaps(files, opts))(),
  );
  serverOptions(
    signatures
      .command('configmap')
      .description('print the ConfigMap that lets a disconnected cluster verify a release (oc apply -f -)')
      .argument('<release>', 'a version (with --arch) or a digest sha256:<hex>')
      .option('--arch <arch>', 'architecture of the version', 'amd64'),
  ).action((release: string, opts: ClientOptions & { arch: string }) =>
    run(async () => (await import('./signing.js')).printSignatureConfigMap(release, opts))(),
  );
}
