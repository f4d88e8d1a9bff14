// The `cincy` command line: one subcommand per file of this folder. Each command loads what it runs
// when it runs: defining every command (for parsing and --help) loads commander and little else.
import { Option, type Command } from 'commander';
import { BUNDLED_GRAPH_DATA, SETTINGS, type Setting } from '../settings.js';
import { addAdminCommands } from './admin.js';
import { addChannelCommands } from './channels.js';
import { cincyProgram, commandRunner, runProgram } from './program.js';
import { addReleaseCommands } from './releases.js';
import { addSignatureCommands } from './signatures.js';
import { addPathCommands } from './paths.js';
import type { TokenOptions } from './token.js';
import type { AgentCliOptions } from './agent.js';
import { defineAgentCommand } from './agentCommand.js';
import { addPayloadCommands } from './payloadCommands.js';
import { addClusterCommands } from './clusterCommands.js';

/** Where the simulated cluster's commands are: a clone of the repository runs them (bin/cincy.js hands them over). */
const SIMULATOR_HELP = `
The simulated cluster (a test and demo tool, simulator/ in a clone of the repository, not part of this
package) adds: mock-cluster, payload create, payload push, seed push, and agent --follow-mock-clock.`;

export function main(argv: string[]): Promise<number> {
  return runProgram(buildProgram, argv);
}

/**
 * Every command of `cincy`, defined but not run: `main` parses argv with it, and
 * scripts/docs/reference.mjs walks it to write docs/reference/cli.md. A command's action hands its
 * exit code to `setCode`.
 */
export function buildProgram(setCode: (code: number) => void = () => {}): Command {
  const run = commandRunner(setCode);
  const program = cincyProgram('Cincinnati update graph server for OpenShift-style clusters').addHelpText(
    'after',
    SIMULATOR_HELP,
  );

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

  defineAgentCommand(program).action(
    run(async (opts: AgentCliOptions) => (await import('./agent.js')).agentCommand(opts)),
  );

  // The Kubernetes client alone is about 70 MB of a process, and loads only for the commands that use it.
  addClusterCommands(program, (f) => run(f));
  addPayloadCommands(program, (f) => run(f));

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
