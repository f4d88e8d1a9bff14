// Where changes go in the write transaction that records them: graph history's changes table, the
// webhook outbox. A sink that throws rolls the whole transaction back.
import type { Change } from '../history/change.js';
import type { StoreTx } from './store.js';

export type ChangeSink = (tx: StoreTx, changes: readonly Change[]) => Promise<void>;
