// What `cincy get` prints a kind with: the objects as it reads them, and a printer of each kind's table.
import type { Resource } from '../cluster/api.js';

export type Obj = {
  metadata: { name: string; creationTimestamp?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown> & {
    conditions?: Array<{ type: string; status: string; lastTransitionTime?: string; message?: string }>;
  };
};

export interface GetPrinter {
  resource: Resource;
  columns: string[];
  row(o: Obj, age: (time: string | undefined) => string): string[];
  /**
   * The columns `-o wide` adds after the others, as kubectl shows a kind's printer columns of priority 1
   * (a node's addresses, OS image, kernel and runtime); a kind without any prints its usual table.
   */
  wide?: { columns: string[]; row(o: Obj): string[] };
  /** What follows the table (the stage runs of an ImageBasedUpgrade). */
  after?(items: Obj[], age: (time: string | undefined) => string): string;
  /** The error when the cluster does not serve the kind at all (an operator's API that is not installed). */
  unserved?: string;
}
