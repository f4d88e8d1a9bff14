// Which command lines are the simulator's, for bin/cincy.js to hand over in a clone of the repository.
// Kept apart from the commands themselves, so that deciding loads nothing else.

/** What `cincy --help` adds in a clone: the commands the simulator brings. */
export const SIMULATOR_HELP = `
The simulated cluster (a test and demo tool, simulator/ in this clone of the repository, not part of the
cincy package) adds: mock-cluster, payload create, payload push, seed push, and agent --follow-mock-clock.`;

/** Whether `cincy <args…>` is a command of the simulator. */
export function isSimulatorCommand(args: readonly string[]): boolean {
  const [command, sub] = args;
  if (command === 'mock-cluster' || command === 'seed') return true;
  if (command === 'payload') return sub === 'create' || sub === 'push';
  if (command === 'agent') return args.includes('--follow-mock-clock');
  return false;
}
