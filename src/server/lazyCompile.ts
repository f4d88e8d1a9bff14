// Route schemas compiled the first time a request needs them, not when the server starts: most
// routes are admin routes a serving process may never be asked, and compiling every validator
// (Ajv) and response serializer (fast-json-stringify) took a good part of the start. `cincy openapi`
// and the tests compile every one handed out (compileAllPending), so a schema that does not compile
// fails them, not only the first request that needs it.

/** The compile functions handed out and not called yet. */
const pending = new Set<() => unknown>();

/** A function that compiles on its first call and returns the same result on every later one. */
export function onFirstUse<T>(compile: () => T): () => T {
  let compiled: { value: T } | undefined;
  const get = (): T => {
    if (!compiled) {
      compiled = { value: compile() };
      pending.delete(get);
    }
    return compiled.value;
  };
  pending.add(get);
  return get;
}

/** Compiles everything not compiled yet; throws what a compiler throws. Returns how many there were. */
export function compileAllPending(): number {
  const all = [...pending];
  for (const compile of all) compile();
  return all.length;
}
