// The quick YAML reader against libyaml itself (0.2.5, the parser the reference implementation's serde_yaml
// translates), through PyYAML's C parser in a python3 process: where the quick reader answers and the exact
// reader refuses, libyaml reads the same value; and the two readers together are not further from libyaml
// than the exact reader alone. Needs python3 with PyYAML built on libyaml (Debian's python3-yaml).
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readQuickly } from '../../../src/sources/yamlQuick.js';
import { parseYamlValues, readExactly } from '../../../src/sources/yamlValues.js';
import { readOrRefusal, realYamlFiles, yamlMutants, type Read } from '../../support/yamlCorpus.js';

const ORACLE = join(import.meta.dirname, '..', '..', 'support', 'libyaml-oracle.py');

function libyamlAvailable(): boolean {
  const probe = spawnSync('python3', ['-c', 'import yaml, sys; sys.exit(0 if yaml.__with_libyaml__ else 1)']);
  if (probe.status === 0) return true;
  const what = 'python3 with PyYAML on libyaml (apt-get install python3-yaml)';
  if (process.env.CI === 'true') throw new Error(`${what} not found (CI=true: nothing may skip)`);
  console.warn(`\n*** SKIPPING the quick YAML reader against libyaml: ${what} not found ***\n`);
  return false;
}

function libyamlReads(texts: string[]): Read[] {
  const out = execFileSync('python3', [ORACLE], { input: JSON.stringify(texts), maxBuffer: 1 << 28 });
  return JSON.parse(out.toString('utf8')) as Read[];
}

/** How a reader's answer stands to libyaml's: the same, both refusing, or which way they differ. */
function against(ours: Read, libyaml: Read): string {
  if ('refused' in libyaml) return 'refused' in ours ? 'both refuse' : 'accepts what libyaml refuses';
  if ('refused' in ours) return 'refuses what libyaml reads';
  return JSON.stringify(ours.value) === JSON.stringify(libyaml.value) ? 'same value' : 'another value';
}

describe.skipIf(!libyamlAvailable())('the quick YAML reader against libyaml', () => {
  it('answers where the exact reader refuses only as libyaml reads, and leaves the readers no further from it', () => {
    const texts = realYamlFiles().map((f) => f.text);
    const corpus = [...texts, ...yamlMutants(texts, 6000, 40)];
    const libyaml = libyamlReads(corpus);
    const tally = { exact: {} as Record<string, number>, both: {} as Record<string, number> };
    let answeredBeyondExact = 0;
    corpus.forEach((text, i) => {
      const exact = readOrRefusal(readExactly, text);
      const quick = readQuickly(text);
      if (quick !== undefined && 'refused' in exact) {
        answeredBeyondExact++;
        expect({ value: quick }, JSON.stringify(text)).toEqual(libyaml[i]);
      }
      // Explicit tags aside: serde_yaml's reading of them is not this oracle's.
      if (text.includes('!')) return;
      const e = against(exact, libyaml[i]!);
      const b = against(readOrRefusal(parseYamlValues, text), libyaml[i]!);
      tally.exact[e] = (tally.exact[e] ?? 0) + 1;
      tally.both[b] = (tally.both[b] ?? 0) + 1;
    });
    console.log(`${corpus.length} texts; the quick reader read ${answeredBeyondExact} that the exact one refuses`);
    console.log('exact reader against libyaml:', tally.exact);
    console.log('quick, then exact, against libyaml:', tally.both);
    for (const off of ['accepts what libyaml refuses', 'refuses what libyaml reads', 'another value'])
      expect(tally.both[off] ?? 0, off).toBeLessThanOrEqual(tally.exact[off] ?? 0);
  });
});
