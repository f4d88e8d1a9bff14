// Which command lines are the simulator's, for bin/cincy.js to hand over in a clone of the repository.
// Kept apart from the commands themselves, so that deciding loads nothing else.

/** Whether `cincy <args…>` is a command of the simulator. */
export function isSimulatorCommand(args: readonly string[]): boolean {
  const [command, sub] = args;
  if (command === 'mock-cluster' || command === 'seed') return true;
  if (command === 'payload') return sub === 'create' || sub === 'push';
  if (command === 'agent') return args.includes('--follow-mock-clock');
  return false;
}
