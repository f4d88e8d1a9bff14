// The mock cluster's state file after a crash, in this process: a change cut short by a kill is dropped,
// a file or journal line that is not one is an error naming it, and a snapshot replaces the journal. The
// mock cluster against hostile clients, as a process, is in simulator/test/e2e/mock-cluster-hostile.test.ts.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kindNamed } from '@cincy/simulator/apiserver/kinds';
import { ClusterState } from '@cincy/simulator/apiserver/state';
import { useCleanup } from '../../../../test/support/cleanup.js';

const cleanup = useCleanup();

describe('the mock cluster state file after a crash', () => {
  const cm = kindNamed('ConfigMap');
  const seeded = (file: string): ClusterState => {
    const s = new ClusterState(file);
    s.create(kindNamed('Namespace'), undefined, { metadata: { name: 'default' } });
    for (const name of ['a', 'b']) s.create(cm, 'default', { metadata: { name } });
    return s;
  };

  it('reliability finding 10: a change cut short by a kill while it was written is dropped and cut off, and the next change follows the last whole one', () => {
    const file = join(cleanup.dir(), 'state.json');
    const first = seeded(file);
    first.close();
    const torn = '{"rv":4,"put":{"apiVersion":"v1","kind":"Conf';
    appendFileSync(`${file}.journal`, torn); // a kill in the middle of a write
    const again = new ClusterState(file);
    expect(again.droppedBytes).toBe(torn.length);
    expect(again.list(cm).map((c) => c.metadata.name)).toEqual(['a', 'b']);
    again.create(cm, 'default', { metadata: { name: 'c' } });
    again.close();
    const third = new ClusterState(file);
    expect(third.droppedBytes).toBe(0);
    expect(third.list(cm).map((c) => [c.metadata.name, c.metadata.resourceVersion])).toEqual([
      ['a', '2'],
      ['b', '3'],
      ['c', '4'],
    ]);
    third.close();
  });

  it('reliability finding 10: a journal line that is not a change, or a state file that is not one, is an error naming the file and the line', () => {
    const file = join(cleanup.dir(), 'state.json');
    seeded(file).close();
    const lines = readFileSync(`${file}.journal`, 'utf8').split('\n');
    writeFileSync(`${file}.journal`, [lines[0], '{"rv": 2, "put": 5}', ...lines.slice(1)].join('\n'));
    expect(() => new ClusterState(file)).toThrow(
      `${file}.journal: line 2 is not a change: expected {"rv": N, "put": {...}}`,
    );
    writeFileSync(`${file}.journal`, [lines[0], '{"rv": 2, "pu', ...lines.slice(1)].join('\n'));
    expect(() => new ClusterState(file)).toThrow(`${file}.journal: line 2 is not a change: `);
    writeFileSync(file, '{"objects": []}');
    expect(() => new ClusterState(file)).toThrow(`${file}: not a mock cluster state file: expected {"revision": N`);
  });

  it('reliability finding 10: a snapshot replaces the journal, and a journal line the snapshot already holds is not applied twice', () => {
    const file = join(cleanup.dir(), 'state.json');
    const s = seeded(file);
    const journal = readFileSync(`${file}.journal`, 'utf8');
    s.delete(cm, 'default', 'a');
    s.flush(); // the snapshot holds revision 4 (a deleted); the journal is empty
    s.close();
    expect(readFileSync(`${file}.journal`, 'utf8')).toBe('');
    writeFileSync(`${file}.journal`, journal); // as if the process died between the rename and cutting the journal
    const again = new ClusterState(file);
    expect(again.list(cm).map((c) => c.metadata.name)).toEqual(['b']);
    expect(again.resourceVersion).toBe('4');
    again.close();
  });
});
