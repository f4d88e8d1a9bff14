// `cincy serve`: the graph-data tree is read in a worker thread from the very start (unless the store
// holds it already: sources/treeAtStart.ts), while this thread loads the rest of itself (run.ts) and
// checks the settings; then the steps of run.ts serve until a signal.
import type { ServeFlags } from '../../config.js';
import { graphDataPath, storeFilePath } from '../../settings.js';
import { treeAtStart } from '../../sources/treeAtStart.js';

export async function serve(flags: ServeFlags): Promise<number> {
  // The tree's path is known before the settings are checked (which loads a schema library).
  const path = graphDataPath(flags, process.env);
  const reading = new AbortController();
  const tree = path === undefined ? undefined : treeAtStart(path, storeFilePath(flags, process.env), reading.signal);
  try {
    const { run } = await import('./run.js');
    return await run(flags, tree);
  } finally {
    // Only a start that ended (a refused setting, a failure) gets here: the read, if still going, stops.
    reading.abort();
  }
}
