// The types of generate.mjs, for the tests that write a generated tree in their own process.

/** What writeTree writes; its parts are the generator's own business. */
export interface Dataset {
  seed: number;
}

/** The dataset of `size` and `seed`: the same arguments always give the same dataset. */
export function generateDataset(args: { size: 'demo' | 'full'; seed: number }): Dataset;
