// The quick YAML reader answers only as the exact reader does: on every real graph-data file, on thousands
// of mutants of them, and on each shape it is known to read otherwise it gives way. Its agreement with
// libyaml itself where the exact reader refuses is tested in test/service/sources/yamlQuick.libyaml.test.ts.
import { describe, expect, it } from 'vitest';
import { readQuickly } from '../../../src/sources/yamlQuick.js';
import { parseYamlValues, readExactly } from '../../../src/sources/yamlValues.js';
import { readOrRefusal, realYamlFiles, yamlMutants, type Read } from '../../support/yamlCorpus.js';

const exactly = (text: string): Read => readOrRefusal(readExactly, text);

const files = realYamlFiles();

describe('the quick YAML reader', () => {
  it('reads the real graph-data files, nearly all of them, each to the exact reader’s value', () => {
    const gaveWay: string[] = [];
    for (const { path, text } of files) {
      const quick = readQuickly(text);
      if (quick === undefined) gaveWay.push(path);
      else expect(quick, path).toEqual(readExactly(text));
    }
    console.log(
      `quick reader: ${files.length - gaveWay.length} of ${files.length} real files read, gave way on ${gaveWay.length}`,
    );
    // Were js-yaml's listener or its anchor map gone, it would give way on every file: slow, and caught here.
    expect(gaveWay.length).toBeLessThan(files.length / 50);
  });

  it('never gives a value the exact reader reads otherwise, over 3,000 mutants of the real files', () => {
    const counts = { same: 0, gaveWay: 0, exactRefuses: 0 };
    for (const text of yamlMutants(
      files.map((f) => f.text),
      3000,
      39,
    )) {
      const quick = readQuickly(text);
      if (quick === undefined) {
        counts.gaveWay++;
        continue;
      }
      const exact = exactly(text);
      if ('refused' in exact) counts.exactRefuses++;
      else {
        expect(quick, JSON.stringify(text)).toEqual(exact.value);
        counts.same++;
      }
    }
    console.log('quick reader over 3,000 mutants:', counts);
    expect(counts.same).toBeGreaterThan(1000);
  });

  it.each([
    ['an anchor, so that aliases meet the exact reader’s expansion bound', 'a: &x [1, 2]\nb: *x\n'],
    ['an anchor that no alias names', 'a: &x 1\n'],
    ['no final line break', 'k: |\n  x'],
    ['an explicit key', '? [a]\n: b\n'],
    ['a flow collection as a key', '[a]: b\n'],
    ['a tab in the indentation', 'k: |\n \tx\n'],
    ['a block scalar as the root', '>1\n x\n'],
    ['a compact nested sequence', '- - # c\n- x\n'],
    ['an empty sequence entry', 'k:\n  - \n- x\n'],
    ['a null key', '~: a\n'],
    ['an empty key', ': a\n'],
    ['a tag js-yaml does not know', 'k: !!int 3\n'],
    ['a duplicate key', 'k: a\nk: b\n'],
    // Found by review: js-yaml reads each of these otherwise than libyaml or the exact reader.
    ['a document start with no space after it', '---# c\nto: 4.16.5\nfrom: .*\n'],
    ['a block collection on the document start line', '--- a: 1\n'],
    ['a directive', '%YAML 1.1\n---\na: 1\n'],
    ['a tag that makes a collection of nothing', 'versions: !!seq\n'],
    ['a bare tag', 'a: !\n'],
    ['a key of more than 1,024 characters', 'k'.repeat(1025) + ': v\n'],
  ])('gives way on %s', (_why, text) => {
    expect(readQuickly(text)).toBeUndefined();
  });

  it('leaves those files to the exact reader, whose value or refusal is the answer', () => {
    expect(parseYamlValues('k: |\n  x')).toEqual({ k: 'x' }); // libyaml adds no break the input lacks
    expect(parseYamlValues('- - # c\n- x\n')).toEqual([[null], 'x']); // js-yaml: [[null, 'x']]
    expect(parseYamlValues('k: !!int 3\n')).toEqual({ k: '3' });
    expect(() => parseYamlValues('k: a\nk: b\n')).toThrow('Map keys must be unique (a duplicate at line 2)');
    expect(() => parseYamlValues('---# c\nto: 4.16.5\nfrom: .*\n')).toThrow(); // libyaml refuses it too
    expect(parseYamlValues('versions: !!seq\n')).toEqual({ versions: '' }); // js-yaml: []
    expect(() => parseYamlValues('k'.repeat(1025) + ': v\n')).toThrow(/1024/);
    // Flow collections nested past serde_yaml's limit are refused before the yaml package overflows its stack.
    expect(() => parseYamlValues('k: ' + '['.repeat(20000) + '\n')).toThrow(
      "20000 '[' or '{' open at once: flow collections nest at most 128 deep",
    );
    expect(parseYamlValues('k: ' + '['.repeat(128) + ']'.repeat(128) + '\n')).toEqual({ k: expect.any(Array) });
    expect(() => parseYamlValues('a: 1\n? [a]\n: b\n')).toThrow('a key that is a sequence or a mapping at line 2');
    expect(() => parseYamlValues('k:\n  - \n- x\n')).toThrow(); // js-yaml: { k: [null, 'x'] }; libyaml refuses
  });

  // A check that backtracks over a run would take hours on these: each is read at the speed of any file.
  const MiB = 1 << 20;
  it.each([
    ['a line of spaces', 'to: 4.1.1' + ' '.repeat(MiB - 30) + '\nfrom: .*\n'],
    ['brackets and spaces', '] '.repeat(MiB / 2) + '\n'],
    ['a comment of brackets', 'k: v #' + ']#'.repeat(MiB / 2 - 10) + '\n'],
    ['lines of spaces', ('\n' + ' '.repeat(1000)).repeat(MiB / 1001) + '\n'],
    ['dashes', '- '.repeat(MiB / 2) + 'x\n'],
    ['tags', '!a '.repeat(MiB / 3) + 'x\n'],
    ['colons after spaces', ' :x'.repeat(MiB / 3) + '\n'],
    ['null forms', ' null'.repeat(MiB / 5) + 'x\n'],
  ])('checks a 1 MiB file of %s in time linear in it', (_what, text) => {
    const quick = readQuickly(text);
    if (quick !== undefined) expect({ value: quick }).toEqual(exactly(text));
  });

  it('reads scalars as their text and the null forms as null, as the exact reader does', () => {
    const text = 'a: 4.10\nb: true\nc: 1e3\nd:\ne: ~\nf: Null\ng: "null"\nh: [x, ~]\n';
    expect(readQuickly(text)).toEqual({
      a: '4.10',
      b: 'true',
      c: '1e3',
      d: null,
      e: null,
      f: null,
      g: 'null',
      h: ['x', null],
    });
    expect(readQuickly(text)).toEqual(readExactly(text));
    expect(readQuickly('# only a comment\n')).toBeNull();
  });
});
