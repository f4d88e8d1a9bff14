// A CommonJS package loaded where it is first used instead of when the module naming it loads. For the
// packages a process may never need: undici (a registry, webhook receivers) and pg (a PostgreSQL store)
// cost `cincy serve` 140 and 70 ms of its start each, while most starts use neither.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Returns the package `name`, required at the first call (Node caches it: the same module as an import). */
export function lazyModule<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
