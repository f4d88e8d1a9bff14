// The bundled demo graph-data (invented releases, payloads on quay.example.com) and real data never
// share a store: `serve --demo` imports it into a store of its own, recorded under DEMO_SOURCE, and a
// store that holds it refuses a real source (and a store of real data refuses the demo), each with one
// line saying why and what to do.
import { resolve } from 'node:path';
import { BUNDLED_GRAPH_DATA, DEMO_DB } from '../settings.js';
import type { Store } from '../store/store.js';

/** The import source the demo is recorded under. */
export const DEMO_SOURCE = 'cincy-demo:bundled-graph-data';

/** Whether `path` is the bundled demo tree, however it is written. */
export const isBundled = (path: string): boolean => resolve(path) === BUNDLED_GRAPH_DATA;

/** Whether the store holds the demo: imported by --demo, or by a version that imported it by default. */
export async function holdsDemo(store: Store): Promise<boolean> {
  return store.read((tx) => tx.imports.anyFrom([DEMO_SOURCE, BUNDLED_GRAPH_DATA]));
}

/**
 * Why the store at `where` cannot take what it is asked to (undefined when it can): the demo into a
 * store of real data, or a real source into a store holding the demo.
 */
export async function demoConflict(
  store: Store,
  where: string,
  asked: { demo: boolean; realSource: boolean },
): Promise<string | undefined> {
  const demo = await holdsDemo(store);
  if (asked.demo && !demo && (await store.read((tx) => tx.hasContent())))
    return `the store ${where} holds real data, not the demo: --demo serves from a store of its own (leave out --db for ${DEMO_DB})`;
  if (asked.realSource && demo)
    return `the store ${where} holds the bundled demo data (invented releases): give real data a store of its own (--db FILE or a postgres:// URL), or remove ${where} to start it anew`;
  return undefined;
}
