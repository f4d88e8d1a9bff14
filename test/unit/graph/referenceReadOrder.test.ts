// The model of how the reference lists its blocked-edges folder, which orders the risks it serves.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { referenceReadOrder } from '../../../src/graph/referenceReadOrder.js';
import { CONFORMANCE_DIR, conformanceAvailable } from '../../support/conformance.js';

describe('referenceReadOrder', () => {
  it('lists a small folder in byte order of the names, whatever order they came in', () => {
    const names = ['4.2.1-b.yaml', '4.10.0-A.yaml', '4.2.1-B.yaml', '4.2.1-a.yaml', '4.2.10.yaml'];
    expect(referenceReadOrder(names)).toEqual([
      '4.10.0-A.yaml',
      '4.2.1-B.yaml',
      '4.2.1-a.yaml',
      '4.2.1-b.yaml',
      '4.2.10.yaml',
    ]);
  });

  it('keeps byte order while every name fits the last directory block', () => {
    // Names of one length fill each block exactly alike, so no block is left with room for a later one.
    const names = Array.from({ length: 3000 }, (_, i) => `4.${String(i).padStart(5, '0')}-Risk.yaml`);
    expect(referenceReadOrder([...names].reverse())).toEqual(names);
  });

  it('puts a name into an earlier block that still has room when the last block has none', () => {
    // 80-byte entries leave 32 bytes at the end of each full block. The first short name (a 24-byte entry)
    // takes the last block's tail; the second no longer fits there and goes back to the block before.
    const long = Array.from({ length: 1500 }, (_, i) => `4.${String(i).padStart(5, '0')}-${'L'.repeat(50)}.yaml`);
    const order = referenceReadOrder([...long, '5.a.yaml', '5.b.yaml']);
    expect(order.filter((n) => !n.startsWith('5.'))).toEqual(long);
    expect(order.at(-1)).toBe('5.a.yaml');
    expect(order.indexOf('5.b.yaml')).toBeLessThan(order.indexOf(long.at(-1)!));
  });

  describe.runIf(conformanceAvailable())('on the real graph-data of 2024-08-09', () => {
    const folder = join(CONFORMANCE_DIR, 'real-2024-08-09', 'graph-data', 'blocked-edges');
    const order = referenceReadOrder(readdirSync(folder));
    const risksOf = (to: string) =>
      order.filter((f) => f.startsWith(`${to}-`)).map((f) => f.slice(to.length + 1, -'.yaml'.length));

    it('reads the files of 4.14.7 in the order the public service listed their risks', () => {
      // Served: AzureDefaultVMType, AWSECRLegacyCredProvider, then the others in name order.
      expect(risksOf('4.14.7')).toEqual([
        'AzureDefaultVMType',
        'AWSECRLegacyCredProvider',
        'AROBrokenDNSMasq',
        'ARODNSWrongBootSequence',
        'AWSCustomDomainNodesNotReady',
        'AzureRegistryImagePreservation',
        'IngressDegradedOnRouterReloads',
        'OVNInterConnectTransitionIPsec',
      ]);
    });

    it('reads the files of 4.11.2 in byte order, as the public service listed them', () => {
      expect(risksOf('4.11.2')).toEqual([
        'AWSOldBootImageLackAfterburn',
        'KeepalivedMulticastSkew',
        'MachineConfigRenderingChurn',
        'PodmanTermStorageCorruption',
        'arm64-seccomp-error-524',
        'stale-insights-run-level-label',
        'stale-selinux-policies',
      ]);
    });
  });
});
