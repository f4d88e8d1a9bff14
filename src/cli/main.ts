// The `cincy` command line: one subcommand per file of this folder. Each command loads what it runs
// when it runs: defining every command (for parsing and --help) loads commander and little else.
import { Option, type Command } from 'commander';
import { SETTINGS } from '../settings.js';
import { addAdminCommands } from './admin.js';
import { addChannelCommands } from './channels.js';
import { cincyProgram, commandRunner, runProgram } from './program.js';
import { addReleaseCommands } from './releases.js';
import { addStoreCommands } from './storeCommands.js';
import { addSignatureCommands } from './signatures.js';
import { addPathCommands } from './paths.js';
import { addMirrorPlanCommand } from './mirrorPlan.js';
import { addFleetCommand } from './fleet.js';
import { addReportCommand } from './report.js';
import { SCOPES } from '../app/auth/scopes.js';
import { addChangesCommand } from './changes.js';
import { addRolloutCommands } from './rollouts.js';
import { addWebhookCommands } from './webhooks.js';
import type { TokenOptions } from './token.js';
import type { AgentCliOptions } from './agent.js';
import { defineAgentCommand } from './agentCommand.js';
import { addPayloadCommands } from './payloadCommands.js';
import { addClusterCommands } from './clusterCommands.js';
import { addOperatorCommand } from './operator.js';

/** Runs `cincy`; `helpAfter` is text whoever launches it adds to the help (bin/cincy.js: the simulator's commands, in a clone). */
export function main(argv: string[], helpAfter?: string): Promise<number> {
  return runProgram((setCode) => buildProgram(setCode, helpAfter), argv);
}

/**
 * Every command of `cincy`, defined but not run: `main` parses argv with it, and
 * scripts/docs/reference.mjs walks it to write docs/reference/cli.md. A command's action hands its
 * exit code to `setCode`.
 */
export function buildProgram(setCode: (code: number) => void = () => {}, helpAfter?: string): Command {
  const run = commandRunner(setCode);
  const program = cincyProgram('Cincinnati update graph server for OpenShift-style clusters');
  if (helpAfter) program.addHelpText('after', helpAfter);

  addStoreCommands(program, run);

  program
    .command('token')
    .description('admin tokens')
    .command('create')
    .description('print an admin token (JWT) for local use')
    // The server's own settings (flag or environment), so that a shell set up for `serve` mints for it.
    .addOption(
      new Option('--admin-jwt-secret-file <file>', 'the HS256 secret file the server uses').env(
        SETTINGS.adminJwtSecretFile.env,
      ),
    )
    .option(
      '--private-key <file>',
      "a private JWK (RS256, ES256 or EdDSA) whose public key is in the server's --admin-jwks",
    )
    .requiredOption('--scope <list>', `comma- or space-separated, from ${SCOPES.join(', ')}`)
    .option('--ttl <duration>', 'lifetime: 90s, 30m, 1h, 7d; at most 366d, the longest the server accepts', '1h')
    .option(
      '--subject <name>',
      'who the token speaks for, the audit actor (default: $USER; cluster:ID for a report token)',
    )
    .option(
      '--cluster-id <id>',
      'with --scope fleet:report: the one cluster (its ClusterVersion spec.clusterID) it reports for',
    )
    .addOption(new Option('--issuer <iss>', 'iss claim').env(SETTINGS.adminIssuer.env).default('cincy'))
    .addOption(new Option('--audience <aud>', 'aud claim').env(SETTINGS.adminAudience.env).default('cincy-admin'))
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
  addMirrorPlanCommand(program, (f) => run(f));
  addFleetCommand(program, (f) => run(f));
  addReportCommand(program, (f) => run(f));
  addChangesCommand(program, (f) => run(f));
  addWebhookCommands(program, (f) => run(f));
  addRolloutCommands(program, (f) => run(f));

  defineAgentCommand(program).action(
    run(async (opts: AgentCliOptions) => (await import('./agent.js')).agentCommand(opts)),
  );

  // The Kubernetes client alone is about 70 MB of a process, and loads only for the commands that use it.
  addClusterCommands(program, (f) => run(f));
  addPayloadCommands(program, (f) => run(f));
  addOperatorCommand(program, run);

  program
    .command('openapi')
    .description('print the OpenAPI document the server serves at /openapi')
    .action(run(async () => (await import('./openapi.js')).openapiCommand()));

  return program;
}
