// The payload commands (ls, extract) and their options; their work is payload.ts's, loaded when one of
// them runs. The simulator adds create and push to the same group (demo payloads and release images).
import { Command, Option } from 'commander';
import { DEFAULT_PAYLOAD_STORE } from '../payload/defaults.js';

/** The payload store folder, one setting for every command that reads or writes payloads. */
export const payloadStoreOption = (flag: string, description: string): Option =>
  new Option(`${flag} <dir>`, description).env('CINCY_PAYLOAD_STORE').default(DEFAULT_PAYLOAD_STORE);
export const storeOption = (): Option => payloadStoreOption('--store', 'payload store folder');

export function addPayloadCommands(program: Command, run: (f: () => Promise<number>) => () => Promise<void>): Command {
  const payload = program
    .command('payload')
    .description('release payloads: the manifests an update applies, kept in a payload store folder by image digest');
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
  return payload;
}
