// The bundled demo graph-data (invented releases, payloads on quay.example.com) and real data never
// share a store: the demo is imported into a store of its own, recorded under DEMO_SOURCE, and a store
// that holds it refuses a real source (and a store of real data refuses the demo). The conflict is
// told as a value: the command that was asked says what to do in its own words.
import { resolve } from 'node:path';
import { BUNDLED_GRAPH_DATA } from '../bundled.js';
import type { Store } from '../store/store.js';

/** The import source the demo is recorded under. */
export const DEMO_SOURCE = 'cincy-demo:bundled-graph-data';

/** Whether `path` is the bundled demo tree, however it is written. */
export const isBundled = (path: string): boolean => resolve(path) === BUNDLED_GRAPH_DATA;

/** Whether the store holds the demo: imported as the demo, or by a version that imported it by default. */
export async function holdsDemo(store: Store): Promise<boolean> {
  return store.read((tx) => tx.imports.anyFrom([DEMO_SOURCE, BUNDLED_GRAPH_DATA]));
}

/** The demo asked of a store of real data, or a real source asked of a store holding the demo. */
export interface DemoConflict {
  kind: 'demo-into-real' | 'real-into-demo';
  /** The store, as messages show it. */
  where: string;
}

/** Why the store at `where` cannot take what it is asked to (undefined when it can). */
export async function demoConflict(
  store: Store,
  where: string,
  asked: { demo: boolean; realSource: boolean },
): Promise<DemoConflict | undefined> {
  const demo = await holdsDemo(store);
  if (asked.demo && !demo && (await store.read((tx) => tx.hasContent()))) return { kind: 'demo-into-real', where };
  if (asked.realSource && demo) return { kind: 'real-into-demo', where };
  return undefined;
}

/** The conflict in a sentence, without what to do about it (the command adds that). */
export function describeDemoConflict(c: DemoConflict): string {
  return c.kind === 'demo-into-real'
    ? `the store ${c.where} holds real data, not the demo`
    : `the store ${c.where} holds the bundled demo data (invented releases)`;
}
