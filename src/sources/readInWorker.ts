// Reads a graph-data tree in a worker thread, so that the thread that asked can do other work
// meanwhile: `serve` loads and prepares the HTTP server while its tree is read and validated. The
// result is readGraphData's, the same problems included; a worker that fails rejects with why.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ReadResult } from './graphData.js';

const WORKER = new URL('./graphDataWorker.js', import.meta.url);

/**
 * The tree at `path`, read in a worker thread (stopped when `signal` aborts); in this thread where there is no compiled worker to
 * start (TypeScript sources run by the tests). The returned promise is marked handled, so a failure
 * that comes before anyone awaits it does not count as an unhandled rejection; awaiting it still throws.
 */
export function readGraphDataInWorker(path: string, signal?: AbortSignal): Promise<ReadResult> {
  if (!existsSync(fileURLToPath(WORKER))) return import('./graphData.js').then((m) => m.readGraphData(path));
  const read = new Promise<ReadResult>((resolve, reject) => {
    const worker = new Worker(WORKER, { workerData: path });
    // Aborted (the caller gave up, e.g. on a refused setting): the worker stops and the process may end.
    signal?.addEventListener('abort', () => void worker.terminate(), { once: true });
    worker.once('message', (result: ReadResult) => resolve(asBuffers(result)));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the worker reading ${path} exited with ${code}`)));
  });
  read.catch(() => {});
  return read;
}

/** Buffers cross threads as plain Uint8Arrays: the signature files' bytes are made Buffers again. */
function asBuffers(result: ReadResult): ReadResult {
  for (const s of result.tree?.signatures ?? [])
    s.bytes = Buffer.from(s.bytes.buffer, s.bytes.byteOffset, s.bytes.length);
  return result;
}
