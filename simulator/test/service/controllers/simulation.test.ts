// A restarted simulation: the controllers continue the phases from the state file, and every write is
// journalled before the call returns. The controllers on explicit simulated times are in
// simulator/test/unit/controllers/ (mco, operators, jobs).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PHASE } from '@cincy/simulator/controllers/mco';
import { reconcile } from '@cincy/simulator/controllers/simulation';
import { ClusterState } from '@cincy/simulator/apiserver/state';
import { useCleanup } from '../../../../test/support/cleanup.js';
import { K, MIN, NEW, T0, nodes, runRelease, seedPool } from '../../support/simulation.js';

const cleanup = useCleanup();

describe('a restarted simulation', () => {
  it('continues the phases from the state file', () => {
    const file = join(cleanup.dir(), 'state.json');
    const first = seedPool(file);
    runRelease(first, 'machine-config', NEW);
    reconcile(first, T0);
    reconcile(first, T0 + 12 * MIN);
    first.flush();
    const phases = (s: ClusterState): unknown =>
      nodes(s).map((n) => [
        n.metadata.name,
        n.metadata.annotations?.[PHASE],
        n.metadata.annotations?.['cincy.mock/phase-end'],
      ]);
    const again = new ClusterState(file);
    expect(phases(again)).toEqual(phases(first));
    const rv = again.resourceVersion;
    reconcile(again, T0 + 12 * MIN);
    expect(again.resourceVersion).toBe(rv); // nothing started over
    reconcile(again, T0 + 30 * MIN);
    reconcile(first, T0 + 30 * MIN);
    const view = (s: ClusterState): unknown => nodes(s).map((n) => [n.metadata.annotations, n.spec, n.status]);
    expect(view(again)).toEqual(view(first));
    [first, again].forEach((s) => s.flush()); // no write may be left for after the test removed the folder
  });

  it('journals every write before the call returns, and folds the journal into the state file on flush', () => {
    const file = join(cleanup.dir(), 'state.json');
    const s = new ClusterState(file);
    for (let i = 0; i < 5; i++)
      s.create(K.cm, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` } });
    const names = (state: ClusterState): string[] => state.list(K.cm).map((c) => c.metadata.name);
    const reader = new ClusterState(file); // what a process started now would find
    expect(names(reader)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    reader.close();
    s.flush();
    expect((JSON.parse(readFileSync(file, 'utf8')) as { objects: unknown[] }).objects).toHaveLength(5);
    expect(readFileSync(`${file}.journal`, 'utf8')).toBe('');
    s.close();
  });
});
