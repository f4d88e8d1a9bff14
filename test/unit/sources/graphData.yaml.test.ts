// Every value read from a graph-data YAML file equals what the reference implementation reads. The
// reference parses these files with serde_yaml 0.9 (openshift/cincinnati's Cargo.lock), that is
// unsafe-libyaml, a translation of libyaml 0.2.5, and reads every field as a string (the scalar's
// text). Each expected value below is the answer of that parser for the same bytes, taken from
// libyaml 0.2.5 itself through PyYAML's C loader (yaml.compose with yaml.CLoader, each scalar's raw
// text): "libyaml:" in a comment names that answer. The files are read through the real tree reader.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readGraphData, type ReadResult } from '../../../src/sources/graphData.js';
import { formatProblem } from '../../../src/validation/problems.js';
import { tempDir } from '../../support/cleanup.js';
import { writeTree } from '../../support/trees.js';

let dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  dirs.forEach((d) => d.remove());
  dirs = [];
});

/** Reads the small valid tree of writeTree with `path` replaced by `content` (text, or bytes as they are). */
async function read(path: string, content: string | Buffer): Promise<ReadResult> {
  const d = tempDir();
  dirs.push(d);
  writeTree(d.path);
  writeFileSync(join(d.path, path), content);
  return readGraphData(d.path);
}

const RISK = 'blocked-edges/4.1.1-Risk.yaml';
const CHANNEL = 'channels/stable-4.1.yaml';
/** A risk whose PromQL query is the last value of the file: the tail given is written right after `promql: `. */
const RISK_HEAD =
  'to: 4.1.1\nfrom: 4[.]1[.]0\nurl: https://issues.example/1\nname: Risk\nmessage: It breaks.\n' +
  'matchingRules:\n- type: PromQL\n  promql:\n    promql: ';

async function risk(content: string | Buffer): Promise<NonNullable<ReadResult['tree']>['blockedEdges'][number]> {
  const r = await read(RISK, content);
  expect(r.errors.map(formatProblem)).toEqual([]);
  return r.tree!.blockedEdges.find((e) => e.id === '4.1.1-Risk')!;
}

async function promql(tail: string, shape: { crlf?: boolean; bom?: boolean } = {}): Promise<string> {
  let text = RISK_HEAD + tail;
  if (shape.crlf) text = text.replace(/\n/g, '\r\n');
  if (shape.bom) text = '\uFEFF' + text;
  const rule = (await risk(text)).risk!.matchingRules[0] as { promql: { promql: string } };
  return rule.promql.promql;
}

async function versions(content: string | Buffer): Promise<string[]> {
  const r = await read(CHANNEL, content);
  expect(r.errors.map(formatProblem)).toEqual([]);
  return r.tree!.channels.find((c) => c.name === 'stable-4.1')!.versions;
}

async function problems(path: string, content: string | Buffer): Promise<string[]> {
  const r = await read(path, content);
  expect(r.tree).toBeUndefined();
  return r.errors.map(formatProblem);
}

const QUERY = '\n      sum(a)\n      or b';

describe('block scalars read as the reference reads them', () => {
  // libyaml keeps the breaks that follow the last content line; at the end of a file without a final
  // newline there are none, so clip (|, >) and keep (|+, >+) end without '\n' there, like strip.
  it.each([
    ['|', 'sum(a)\nor b'], // libyaml: "sum(a)\nor b"
    ['|-', 'sum(a)\nor b'], // libyaml: "sum(a)\nor b"
    ['|+', 'sum(a)\nor b'], // libyaml: "sum(a)\nor b"
    ['>', 'sum(a) or b'], // libyaml: "sum(a) or b"
    ['>-', 'sum(a) or b'], // libyaml: "sum(a) or b"
    ['>+', 'sum(a) or b'], // libyaml: "sum(a) or b"
  ])('promql: %s as the last line of a file without a final newline', async (indicator, expected) => {
    expect(await promql(indicator + QUERY)).toBe(expected);
    expect(await promql(indicator + QUERY, { crlf: true })).toBe(expected);
    expect(await promql(indicator + QUERY, { bom: true })).toBe(expected);
  });

  it.each([
    ['|', 'sum(a)\nor b\n', 'sum(a)\n\nor b\n'], // libyaml: "sum(a)\nor b\n", "sum(a)\n\nor b\n"
    ['|-', 'sum(a)\nor b', 'sum(a)\n\nor b'], // libyaml: "sum(a)\nor b", "sum(a)\n\nor b"
    ['|+', 'sum(a)\nor b\n', 'sum(a)\n\nor b\n\n\n'], // libyaml: "sum(a)\nor b\n", "sum(a)\n\nor b\n\n\n"
    ['>', 'sum(a) or b\n', 'sum(a)\nor b\n'], // libyaml: "sum(a) or b\n", "sum(a)\nor b\n"
    ['>-', 'sum(a) or b', 'sum(a)\nor b'], // libyaml: "sum(a) or b", "sum(a)\nor b"
    ['>+', 'sum(a) or b\n', 'sum(a)\nor b\n\n\n'], // libyaml: "sum(a) or b\n", "sum(a)\nor b\n\n\n"
  ])('promql: %s followed by line breaks keeps what its chomping says', async (indicator, expected, withBlanks) => {
    expect(await promql(`${indicator}${QUERY}\n`)).toBe(expected);
    expect(await promql(`${indicator}${QUERY}\n`, { crlf: true })).toBe(expected);
    expect(await promql(`${indicator}\n      sum(a)\n\n      or b\n\n\n`)).toBe(withBlanks);
  });

  it('ends at the end of the file on a line of spaces only when it is content', async () => {
    // Deeper than the indentation, the spaces are a content line: libyaml: "x\n  ".
    expect(await promql('|\n      x\n        ')).toBe('x\n  ');
    // At the indentation, the line is blank: libyaml: "x\n".
    expect(await promql('|\n      x\n      ')).toBe('x\n');
    // A tab after the indentation is content: libyaml: "x\n\ty".
    expect(await promql('|\n      x\n      \ty')).toBe('x\n\ty');
    // Keep chomping with no content and no line break after the header's: libyaml: "".
    const e = await risk(`${RISK_HEAD}up\nautoExtend: |+\n  `);
    expect(e.autoExtend).toBe('');
  });

  it('reads a block scalar that ends a channel file as its text', async () => {
    // libyaml: ["4.1.0", "4.1.1"]
    expect(await versions('name: stable-4.1\nversions:\n- 4.1.0\n- |\n  4.1.1')).toEqual(['4.1.0', '4.1.1']);
  });

  it('refuses a tab where the indentation of a block scalar is still being found, as libyaml does', async () => {
    // libyaml: "found a tab character where an indentation space is expected"
    expect(await problems(RISK, RISK_HEAD + '|\n      \tx\n')).toEqual([
      `${RISK}: -: invalid YAML: a tab where a space of a block scalar's indentation is expected at line 10`,
    ]);
  });
});

describe('scalars read as their text', () => {
  it('reads numbers and explicitly tagged scalars in string fields as written', async () => {
    const e = await risk(
      'to: 4.1.1\nfrom: 4[.]1[.]0\nurl: https://issues.example/1\nname: 0x1F\nmessage: 4.10\n' +
        'matchingRules:\n- type: PromQL\n  promql:\n    promql: !!int 1e3\n',
    );
    // libyaml: name "0x1F", message "4.10", promql "1e3"
    expect(e.risk).toEqual({
      url: 'https://issues.example/1',
      name: '0x1F',
      message: '4.10',
      matchingRules: [{ type: 'PromQL', promql: { promql: '1e3' } }],
    });
  });

  it('reads quoted strings and folded plain scalars like libyaml', async () => {
    const e = await risk(
      "to: 4.1.1\nfrom: 4[.]1[.]0\nurl: https://issues.example/1\nname: 'It''s\n  risky'\n" +
        'message: "a\\x41\\u263A\\t\\\n  b\\\\ \\"c\\"\n\n  d \\L"\n' +
        'matchingRules:\n- type: PromQL\n  promql:\n    promql: sum(a)\n      or\n\n      b   \n',
    );
    // libyaml: name "It's risky", message "aA\u263a\tb\\ \"c\"\nd \u2028", promql "sum(a) or\nb"
    expect(e.risk!.name).toBe("It's risky");
    expect(e.risk!.message).toBe('aA\u263a\tb\\ "c"\nd \u2028');
    expect((e.risk!.matchingRules[0] as { promql: { promql: string } }).promql.promql).toBe('sum(a) or\nb');
    const crlf = await risk(
      'to: 4.1.1\r\nfrom: 4[.]1[.]0\r\nurl: https://issues.example/1\r\nname: Risk\r\n' +
        'message: "It\r\n  breaks\r\n\r\n  badly."\r\nmatchingRules:\r\n- type: Always\r\n',
    );
    expect(crlf.risk!.message).toBe('It breaks\nbadly.'); // libyaml: "It breaks\nbadly."
  });

  it('refuses the null forms where a string is required (the reference would read their text)', async () => {
    // libyaml: message "~". Null stays null here, and a risk's message must be a non-empty string.
    expect(
      await problems(
        RISK,
        'to: 4.1.1\nfrom: 4[.]1[.]0\nurl: https://issues.example/1\nname: Risk\nmessage: ~\nmatchingRules:\n- type: Always\n',
      ),
    ).toEqual([`${RISK}: message: must be a non-empty string`]);
  });
});

describe('bytes and line breaks decoded as libyaml decodes them', () => {
  const channel = 'name: stable-4.1\nversions:\n- 4.1.0\n- 4.1.1\n';

  it('reads UTF-16 by its byte order mark', async () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(channel, 'utf16le')]);
    const be = Buffer.from(le).swap16();
    // libyaml: {"name": "stable-4.1", "versions": ["4.1.0", "4.1.1"]} for both
    expect(await versions(le)).toEqual(['4.1.0', '4.1.1']);
    expect(await versions(be)).toEqual(['4.1.0', '4.1.1']);
  });

  it('takes a lone carriage return and NEXT LINE (U+0085) as line breaks', async () => {
    // libyaml: {"name": "stable-4.1", "versions": ["4.1.0", "4.1.1"]}
    expect(await versions(channel.replace(/\n/g, '\r'))).toEqual(['4.1.0', '4.1.1']);
    expect(await promql('|\r      a\r      b\r')).toBe('a\nb\n'); // libyaml: "a\nb\n"
    expect(await promql('|\n      a\u0085      b\n')).toBe('a\nb\n'); // libyaml: "a\nb\n"
  });

  it('refuses malformed UTF-8 and characters libyaml does not allow', async () => {
    // libyaml: "invalid leading UTF-8 octet"
    expect(
      await problems(CHANNEL, Buffer.concat([Buffer.from(channel), Buffer.from([0x23, 0x20, 0xff, 0x0a])])),
    ).toEqual([`${CHANNEL}: -: invalid YAML: not valid UTF-8 text`]);
    // libyaml: "control characters are not allowed"
    expect(await problems(CHANNEL, `${channel}# \u0007\n`)).toEqual([
      `${CHANNEL}: -: invalid YAML: U+0007 is not allowed in YAML (line 5)`,
    ]);
  });

  it('refuses a line or paragraph separator, a line break to libyaml only', async () => {
    // libyaml: ends the comment at U+2028 and fails on what follows ("could not find expected ':'")
    expect(await problems(CHANNEL, `${channel}# a\u2028b\n`)).toEqual([
      `${CHANNEL}: -: invalid YAML: U+2028 (line 5) is a line break to the reference's YAML reader and not to this one: inside double quotes, write it as \\L or \\P`,
    ]);
  });
});
