// Release payloads: loadPayload's refusals (src/payload/load.ts), each naming the file. The store is
// tested in store.test.ts, the task graph in taskGraph.test.ts, the simulator's generated payload in
// simulator/test/unit/payloads/generate.test.ts.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPayload, PayloadError } from '../../../src/payload/load.js';
import { useCleanup } from '../../support/cleanup.js';

const cleanup = useCleanup();
const HEX = createHash('sha256').update('release 4.16.5').digest('hex');
const IMAGE = `quay.example.com/ocp/release@sha256:${HEX}`;

describe('loadPayload refuses', () => {
  const metadata = JSON.stringify({ kind: 'cincinnati-metadata-v0', version: '4.16.5', previous: [] });
  const references = JSON.stringify({
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    metadata: { name: '4.16.5' },
    spec: { tags: [{ name: 'cli', from: { kind: 'DockerImage', name: IMAGE } }] },
  });
  const configMap = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: b\n';
  function payload(files: Record<string, string | undefined>): string {
    const dir = join(cleanup.dir(), 'release-manifests');
    mkdirSync(dir);
    const all: Record<string, string | undefined> = {
      'release-metadata': metadata,
      'image-references': references,
      '0000_50_demo_00_config.yaml': configMap,
      ...files,
    };
    for (const [name, content] of Object.entries(all))
      if (content !== undefined) writeFileSync(join(dir, name), content);
    return dir;
  }
  function refusal(files: Record<string, string | undefined>): PayloadError {
    try {
      loadPayload(payload(files));
    } catch (err) {
      expect(err).toBeInstanceOf(PayloadError);
      return err as PayloadError;
    }
    throw new Error('loaded');
  }

  it('accepts the minimal payload, skipping empty documents', () => {
    const p = loadPayload(
      payload({
        '0000_50_demo_01_two.yaml': `---\n${configMap}---\n---\n${configMap.replace('name: a', 'name: c')}`,
        'README.md': 'not a manifest',
      }),
    );
    expect(p.manifests.map((m) => [m.file, m.runlevel, m.component, m.docs.length])).toEqual([
      ['0000_50_demo_00_config.yaml', 50, 'demo', 1],
      ['0000_50_demo_01_two.yaml', 50, 'demo', 2],
    ]);
    expect(p.images).toEqual(new Map([['cli', IMAGE]]));
  });

  it.each([
    [
      'a bad file name',
      { 'cvo-deployment.yaml': configMap },
      'cvo-deployment.yaml',
      'cvo-deployment.yaml: does not match 0000_<runlevel>_<component>_<name>.yaml',
    ],
    [
      'a name with no `_` after the component',
      { '0000_50_demo.yaml': configMap },
      '0000_50_demo.yaml',
      'does not match',
    ],
    [
      'invalid YAML',
      { '0000_50_demo_02_bad.yaml': 'apiVersion: v1\nkind: [ConfigMap\n' },
      '0000_50_demo_02_bad.yaml',
      '0000_50_demo_02_bad.yaml: document 1: invalid YAML',
    ],
    [
      'a document without kind',
      { '0000_50_demo_02_two.yaml': `${configMap}---\napiVersion: v1\nmetadata:\n  name: x\n` },
      '0000_50_demo_02_two.yaml',
      '0000_50_demo_02_two.yaml: document 2: kind: must be a non-empty string',
    ],
    [
      'a document without metadata.name',
      { '0000_50_demo_02_x.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n' },
      '0000_50_demo_02_x.yaml',
      'document 1: metadata.name: must be a non-empty string',
    ],
    [
      'a list document',
      { '0000_50_demo_02_x.json': '[1, 2]' },
      '0000_50_demo_02_x.json',
      'document 1: must be an object',
    ],
    [
      'too many aliases',
      { '0000_50_demo_02_x.yaml': `a: &x [1]\nb: [${Array(150).fill('*x').join(', ')}]\n` },
      '0000_50_demo_02_x.yaml',
      'alias',
    ],
    [
      'a file over 4 MiB',
      { '0000_50_demo_02_big.yaml': `${configMap}data:\n  x: "${'x'.repeat(4 * 1024 * 1024)}"\n` },
      '0000_50_demo_02_big.yaml',
      'more than the 4 MiB',
    ],
    [
      'a version that is not semver',
      { 'release-metadata': metadata.replace('4.16.5', '4.16') },
      'release-metadata',
      'release-metadata: version: "4.16" is not a semantic version',
    ],
    [
      'another metadata kind',
      { 'release-metadata': metadata.replace('cincinnati-metadata-v0', 'v1') },
      'release-metadata',
      'release-metadata: kind:',
    ],
    [
      'a missing release-metadata',
      { 'release-metadata': undefined },
      'release-metadata',
      'release-metadata: not found in',
    ],
    [
      'a missing image-references',
      { 'image-references': undefined },
      'image-references',
      'image-references: not found in',
    ],
    [
      'image-references of another version',
      { 'image-references': references.replace('"4.16.5"', '"4.16.4"') },
      'image-references',
      'metadata.name: "4.16.4" is not the release-metadata version 4.16.5',
    ],
  ])('%s', (_what, files, file, message) => {
    const err = refusal(files);
    expect(err.file).toBe(file);
    expect(err.message.startsWith(`${file}: `), err.message).toBe(true);
    expect(err.message).toContain(message);
  });
});
