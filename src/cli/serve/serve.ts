// `cincy serve`: the graph-data tree is read in a worker thread from the very start, while this thread
// loads the rest of itself (run.ts) and checks the settings; then the steps of run.ts serve until a signal.
import type { ServeFlags } from '../../config.js';
import { graphDataPath } from '../../settings.js';
import { readGraphDataInWorker } from '../../sources/readInWorker.js';

export async function serve(flags: ServeFlags): Promise<number> {
  // The tree's path is known before the settings are checked (which loads a schema library).
  const path = graphDataPath(flags, process.env);
  const reading = new AbortController();
  const treeRead = path === undefined ? undefined : readGraphDataInWorker(path, reading.signal);
  try {
    const { run } = await import('./run.js');
    return await run(flags, path === undefined ? undefined : { path, read: treeRead! });
  } finally {
    // Only a start that ended (a refused setting, a failure) gets here: the read, if still going, stops.
    reading.abort();
  }
}
