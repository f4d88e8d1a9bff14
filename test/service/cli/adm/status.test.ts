// `adm upgrade status` (src/cli/adm/status.ts) on an update under way in-process: the executor against the
// mock cluster's API server and simulated controllers, on a clock moved by hand (test/support/updateRig.ts).
// The report's layout on plain values is in test/unit/cli/adm/status.test.ts, the executor itself in
// test/service/agent/update/operator.test.ts.
import { describe, expect, it } from 'vitest';
import { statusReport } from '../../../../src/cli/adm/status.js';
import { readStatusInput } from '../../../../src/cli/adm/status/cluster.js';
import type { InProcessCluster } from '@cincy/simulator/testing/inProcessCluster';
import { useUpdateRig } from '../../../support/updateRig.js';

const { rig } = useUpdateRig();

const history0 = (c: InProcessCluster) => c.cv().status.history?.[0];

describe('adm upgrade status on the update under way', () => {
  it('shows the control plane, the pools and each node with its phase and estimate, as the update goes', async () => {
    const r = await rig({ nodes: { 'worker-2': { reboot: '60m' } } });
    const client = r.cluster.client();
    const status = async (): Promise<string> =>
      statusReport(await readStatusInput(client, r.cluster.clock.now()), 'none');
    expect(await status()).toBe('The cluster is not updating.\n');
    await r.ask({ to: '4.16.5' });
    const phase = (name: string): string | undefined =>
      r.cluster.get('Node', undefined, name)?.metadata.annotations?.['cincy.mock/phase'];
    await r.cluster.runUntil('a master rolling', () => phase('master-0') || phase('master-1') || phase('master-2'));
    const rolling = await status();
    expect(rolling).toMatch(
      /^= Control Plane =\nAssessment: {6}Progressing\nTarget Version: {2}4\.16\.5 \(from 4\.15\.9\)\nUpdating: {8}machine-config\nCompletion: {6}\d+% \(\d+ operators updated, 1 updating, \d+ waiting\)\nDuration: {8}\S+( \(Est\. Time Remaining: [^)]+\))?\nOperator Health: 33 Healthy\n\nControl Plane Nodes\nNAME {7}ASSESSMENT {4}PHASE {6}VERSION {3}EST {3}MESSAGE\nmaster-\d {3}Progressing {3}Updating {3}4\.15\.9 {4}\+5m {3}\n/,
    );
    expect(rolling).toMatch(/\nmaster-\d {3}Outdated {6}Pending {4}4\.15\.9 {4}\? {5}\n/);
    expect(rolling).toContain('\n= Worker Upgrade =\n\nWORKER POOL   ASSESSMENT');
    expect(rolling).toMatch(
      /\n= Update Health =\nSINCE +LEVEL +IMPACT +MESSAGE\n\S+ +Info +None +Upgrade is proceeding well\n$/,
    );

    // The control plane done, one worker still rebooting for an hour.
    const done = await r.cluster.runUntil('4.16.5 completed', () =>
      ((h) => h?.state === 'Completed' && h.version === '4.16.5' && h)(history0(r.cluster)),
    );
    const workers = await status();
    expect(workers).toMatch(
      new RegExp(
        `^= Control Plane =\\nUpdate to 4\\.16\\.5 successfully completed at ${done.completionTime} \\(duration: \\S+\\)\\n\\nAll control plane nodes successfully updated to 4\\.16\\.5\\n\\n= Worker Upgrade =\\n`,
      ),
    );
    expect(workers).toContain(
      [
        'WORKER POOL   ASSESSMENT    COMPLETION   STATUS',
        'worker        Progressing   67% (2/3)    2 Available, 1 Progressing, 0 Draining',
        '',
        'Worker Pool Nodes: worker',
        'NAME       ASSESSMENT    PHASE      VERSION   EST   MESSAGE',
        'worker-2   Progressing   Updating   4.15.9    +5m   ',
        'worker-0   Completed     Updated    4.16.5    -     ',
        'worker-1   Completed     Updated    4.16.5    -     ',
      ].join('\n'),
    );
    const updatedNodes = (): number | undefined =>
      (r.cluster.get('MachineConfigPool', undefined, 'worker')?.status as { updatedMachineCount?: number } | undefined)
        ?.updatedMachineCount;
    await r.cluster.runUntil('every worker updated', () => updatedNodes() === 3);
    expect(await status()).toBe('The cluster is not updating.\n');
  }, 180_000);
});
