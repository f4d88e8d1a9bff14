// The types of writeTree.mjs.
import type { Dataset } from './generate.mjs';

/** Writes `dataset` to the folder `out` (made if missing); the releases written, per architecture. */
export function writeTree(out: string, dataset: Dataset): Record<string, number>;
