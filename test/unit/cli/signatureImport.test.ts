// Reading the signature ConfigMaps oc-mirror writes (src/cli/signatureImport.ts): what is taken, and what is
// left out and why, before anything is uploaded.
import { describe, expect, it } from 'vitest';
import { signaturesOf } from '../../../src/cli/signatureImport.js';

const HEX = 'a'.repeat(64);
const LABEL = 'release.openshift.io/verification-signatures';
const cm = (name: string, labels: Record<string, string>, binaryData: Record<string, string>): object => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'openshift-config-managed', labels },
  binaryData,
});

describe('signature ConfigMaps', () => {
  it('takes each sha256-<hex>-<n> key of a labelled ConfigMap, from JSON, YAML documents or a List', () => {
    const one = JSON.stringify(
      cm('sha256-a', { [LABEL]: '' }, { [`sha256-${HEX}-1`]: 'c2ln', [`sha256-${HEX}-2`]: 'c2lnMg==' }),
    );
    const list = `apiVersion: v1\nkind: List\nitems:\n  - ${JSON.stringify(cm('b', { [LABEL]: '' }, { [`sha256-${'b'.repeat(64)}-1`]: 'eA==' }))}\n---\n${JSON.stringify(cm('c', {}, {}))}\n`;
    const { signatures, skipped } = signaturesOf([
      { name: 'one.json', text: one },
      { name: 'list.yaml', text: list },
    ]);
    expect(signatures.map((s) => [s.file, s.digest, s.bytes.toString()])).toEqual([
      ['one.json', `sha256:${HEX}`, 'sig'],
      ['one.json', `sha256:${HEX}`, 'sig2'],
      ['list.yaml', `sha256:${'b'.repeat(64)}`, 'x'],
    ]);
    expect(skipped).toEqual([`list.yaml: ConfigMap c: no ${LABEL} label: not a signature ConfigMap`]);
  });

  it('names a key of another form, another kind, and a file that is not YAML', () => {
    const { skipped } = signaturesOf([
      {
        name: 'x.yaml',
        text: `${JSON.stringify(cm('d', { [LABEL]: '' }, { 'sha256-nothex-1': 'eA==', [`sha256-${HEX}-1`]: 'not base64!' }))}\n---\nkind: Secret\n`,
      },
    ]);
    expect(skipped).toEqual([
      'x.yaml: ConfigMap d: binaryData "sha256-nothex-1": not sha256-<hex>-<n> with base64 bytes',
      `x.yaml: ConfigMap d: binaryData "sha256-${HEX}-1": not sha256-<hex>-<n> with base64 bytes`,
      'x.yaml: a Secret, not a ConfigMap',
    ]);
    expect(() => signaturesOf([{ name: 'bad.yaml', text: 'a: [\n' }])).toThrow(/bad\.yaml: document 1: /);
  });
});
