// Commander checks required options before unknown ones, so `cincy promote 4.16.3 --too fast` would
// complain that --to is missing instead of naming --too. Here required options are checked after the
// unknown ones (in a preAction hook), with commander's own message, and --help still lists them.
import type { Command, Option } from 'commander';

/** Moves the required-option check of every command under `program` after the unknown-option check. */
export function checkRequiredAfterUnknown(program: Command): void {
  const required = new Map<Command, Option[]>();
  const visit = (cmd: Command): void => {
    const options = cmd.options.filter((o) => o.mandatory);
    for (const o of options) o.mandatory = false;
    if (options.length) required.set(cmd, options);
    cmd.commands.forEach(visit);
  };
  visit(program);
  program.hook('preAction', (_program, action) => {
    for (const o of required.get(action) ?? [])
      if (action.getOptionValue(o.attributeName()) === undefined)
        action.error(`error: required option '${o.flags}' not specified`, {
          code: 'commander.missingMandatoryOptionValue',
        });
  });
}
