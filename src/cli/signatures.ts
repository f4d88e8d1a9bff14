// Signature commands and their options: make keys, sign a payload digest (JWS), and print the ConfigMap
// a disconnected cluster needs to verify a release against this service's signature store. Their work
// is signing.ts's, loaded when one of them runs.
import { writeFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import type { ClientOptions } from './admin.js';

const ALGS = ['EdDSA', 'ES256', 'RS256'] as const;
export type SigningAlgorithm = (typeof ALGS)[number];

export function addSignatureCommands(program: Command, run: (f: () => Promise<number>) => () => Promise<void>): void {
  program
    .command('keys')
    .description('signing keys')
    .command('generate')
    .description(
      'make a signing key pair: <kid>.private.jwk.json (for cincy sign) and <kid>.jwks.json (for --trust-keys)',
    )
    .addOption(new Option('--alg <alg>', 'algorithm').choices([...ALGS]).default('EdDSA'))
    .option('--kid <id>', 'key id', `cincy-${new Date().toISOString().slice(0, 10)}`)
    .requiredOption('--out <dir>', 'folder to write the two files to')
    .action((opts: { alg: SigningAlgorithm; kid: string; out: string }) =>
      run(async () => {
        const r = await (await import('./signing.js')).generateKeys(opts);
        process.stdout.write(`private key: ${r.privateFile}\npublic JWKS: ${r.jwksFile}\n`);
        return 0;
      })(),
    );

  program
    .command('sign')
    .description('write a JWS signed statement for a release payload')
    .requiredOption('--key <file>', 'private JWK (cincy keys generate)')
    .requiredOption('--payload <pullspec>', 'the release image by digest: registry/repo@sha256:<hex>')
    .option('--out <file>', 'write here instead of standard output')
    .action((opts: { key: string; payload: string; out?: string }) =>
      run(async () => {
        const jws = await (await import('./signing.js')).signPayload(opts.key, opts.payload);
        if (opts.out) writeFileSync(opts.out, jws);
        else process.stdout.write(`${jws}\n`);
        return 0;
      })(),
    );

  program
    .command('signatures')
    .description('release signatures')
    .command('configmap')
    .description('print the ConfigMap that lets a disconnected cluster verify a release (oc apply -f -)')
    .argument('<release>', 'a version (with --arch) or a digest sha256:<hex>')
    .option('--arch <arch>', 'architecture of the version', 'amd64')
    .addOption(new Option('--server <url>', 'cincy server').env('CINCY_SERVER').default('http://127.0.0.1:8080'))
    .action((release: string, opts: ClientOptions & { arch: string }) =>
      run(async () => (await import('./signing.js')).printSignatureConfigMap(release, opts))(),
    );
}
