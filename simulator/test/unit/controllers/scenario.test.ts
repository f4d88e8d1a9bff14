// The mock cluster's scenario files (simulator/src/controllers/scenario.ts): what they turn into, and the
// errors naming what is wrong. The controllers they drive are beside it (mco, operators, jobs).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScenarioError, scenarioFileData } from '@cincy/simulator/controllers/scenario';
import { useCleanup } from '../../../../test/support/cleanup.js';

const cleanup = useCleanup();

describe('scenario files', () => {
  const write = (text: string): string => {
    const f = join(cleanup.dir(), 'scenario.yaml');
    writeFileSync(f, text);
    return f;
  };
  const known = { operators: ['dns', 'etcd'], nodes: ['worker-0'] };

  it('turn into ConfigMap data', () => {
    const f = write(
      'platform: GCP\noperators:\n  etcd: {duration: 10m, behavior: degraded}\nnodeDefaults: {drain: 5m}\nnodes:\n  worker-0: {reboot: 90s}\n',
    );
    expect(scenarioFileData(f, known)).toEqual({
      platform: 'GCP',
      operators: '{"etcd":{"duration":"10m","behavior":"degraded"}}',
      nodeDefaults: '{"drain":"5m"}',
      nodes: '{"worker-0":{"reboot":"90s"}}',
    });
  });

  it.each([
    [
      'operators:\n  etcd: {behavior: broken}\n',
      'operators.etcd.behavior: "broken" is not a behavior (one of normal, degraded, unavailable)',
    ],
    ['operators:\n  etcd: {duration: soon}\n', 'operators.etcd.duration: "soon" is not a duration'],
    ['operators:\n  etdc: {duration: 1m}\n', 'operators.etdc: no such ClusterOperator'],
    ['nodes:\n  worker-0: {drain: 5}\n', 'nodes.worker-0.drain: 5 is not a duration'],
    ['nodeDefaults: {reboots: 1m}\n', 'nodeDefaults.reboots: unknown phase'],
    ['workers: 5\n', 'workers: unknown key'],
  ])('name the file and the field: %s', (text, message) => {
    const f = write(text);
    expect(() => scenarioFileData(f, known)).toThrow(ScenarioError);
    expect(() => scenarioFileData(f, known)).toThrow(`${f}: ${message}`);
  });
});
