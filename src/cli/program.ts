// What every `cincy` program shares — the product's and the simulator's: the program itself, its
// commands' way of handing back an exit code, parsing a command line into one, and running as a process.
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../settings.js';
import { PACKAGE_VERSION } from '../version.js';
import { checkRequiredAfterUnknown } from './requiredOptions.js';
import { escapeLines } from './terminalText.js';

/** A `cincy` program with no command yet: errors are thrown to the caller, not acted on by commander. */
export function cincyProgram(description: string): Command {
  return new Command('cincy')
    .description(description)
    .version(PACKAGE_VERSION)
    .enablePositionalOptions() // `cincy mock-cluster --version 4.16.3` is the subcommand's option
    .exitOverride()
    .showHelpAfterError();
}

/** Wraps a command's work so that the exit code it returns reaches `setCode`. */
export const commandRunner =
  (setCode: (code: number) => void) =>
  <A extends unknown[]>(f: (...args: A) => Promise<number> | number) =>
  async (...args: A): Promise<void> => {
    setCode(await f(...args));
  };

/**
 * Parses `argv` with the program `build` makes and runs the command: its exit code, commander's for an error
 * of the command line, 2 for an invalid configuration (said on standard error). Anything else is thrown.
 */
export async function runProgram(build: (setCode: (code: number) => void) => Command, argv: string[]): Promise<number> {
  let code = 0;
  const program = build((c) => (code = c));
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

/** Runs `main` as this process: its exit code; a failure as one line on standard error, and exit code 1. */
export function runAsProcess(main: (argv: string[]) => Promise<number>): void {
  // `cincy … | head`: once the reader has gone, the rest of the output has nowhere to go; stop quietly,
  // as Unix tools do, instead of dying on the write error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      process.exit(0);
    });
  }
  main(process.argv).then(
    (code) => {
      if (typeof code === 'number') process.exitCode = code;
    },
    (err: unknown) => {
      // The message may quote what a server answered: control characters are shown, not acted on.
      process.stderr.write(`cincy: ${escapeLines(err instanceof Error ? err.message : String(err))}\n`);
      process.exitCode = 1;
    },
  );
}
