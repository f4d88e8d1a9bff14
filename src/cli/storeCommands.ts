// The commands of the store and its trees: serve (import, build, serve), import (once), validate, export.
// Their work is loaded when one of them runs.
import { Option, type Command } from 'commander';
import { BUNDLED_GRAPH_DATA, SETTINGS, type Setting } from '../settings.js';
import type { commandRunner } from './program.js';

export function addStoreCommands(program: Command, run: ReturnType<typeof commandRunner>): void {
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
  // commander reads `--no-fleet` as `fleet: false` (and `fleet: true` when absent): the setting is noFleet.
  serveCmd.action(
    run(async () => {
      const { fleet, ...flags } = serveCmd.opts();
      return (await import('./serve/serve.js')).serve({ ...flags, ...(fleet === false && { noFleet: true }) });
    }),
  );

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
    'registryRequestDeadline',
    'registryScrapeDeadline',
    'registryMaxTags',
    'registryAllowHosts',
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
    .command('graph-data')
    .description('the graph-data container image')
    .command('push')
    .description(
      'push DIR as a graph-data image laid out as oc-mirror lays it out (/var/lib/cincinnati-graph-data/); ' +
        'refuses an invalid tree; prints the pull spec by digest',
    )
    .argument('<dir>', 'graph-data directory')
    .requiredOption('--image <ref>', '[http://]HOST[:PORT]/REPOSITORY:TAG to push to (http:// means plain HTTP)')
    .option('--registry-credentials <file>', SETTINGS.registryCredentials.description)
    .option('--registry-ca <file>', SETTINGS.registryCa.description)
    .action(
      run(async (dir: string, opts: { image: string; registryCredentials?: string; registryCa?: string }) =>
        (await import('./graphDataPush.js')).graphDataPush(dir, opts),
      ),
    );

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
