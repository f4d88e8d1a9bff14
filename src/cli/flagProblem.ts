// A flag whose value cannot be used: a file that does not read, a name that does not parse, two flags
// that go together given apart. The message starts with the flag's name, the way a command line user
// wrote it; the modules below the command line name only files and values.
export class FlagProblem extends Error {}

/** What `f` returns; what it throws comes back as a FlagProblem naming `flag`. */
export function underFlag<T>(flag: string, f: () => T): T {
  try {
    return f();
  } catch (err) {
    throw named(flag, err);
  }
}

/** underFlag for a promise. */
export async function underFlagAsync<T>(flag: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    throw named(flag, err);
  }
}

function named(flag: string, err: unknown): FlagProblem {
  if (err instanceof FlagProblem) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new FlagProblem(message.startsWith(`${flag}:`) ? message : `${flag}: ${message}`, { cause: err });
}
