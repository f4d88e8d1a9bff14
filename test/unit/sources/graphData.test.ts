// Bad graph-data trees: each problem is reported with its file and field, and the tree is refused whole.
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as tar from 'tar';
import { readGraphData } from '../../../src/sources/graphData.js';
import { MAX_FILE_BYTES } from '../../../src/sources/treeLimits.js';
import { formatProblem } from '../../../src/validation/problems.js';
import { tempDir } from '../../support/cleanup.js';
import { release, writeTree } from '../../support/trees.js';

let dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  dirs.forEach((d) => d.remove());
  dirs = [];
});
function tree(files: Record<string, string | undefined> = {}): string {
  const d = tempDir();
  dirs.push(d);
  return writeTree(d.path, files);
}
async function problems(files: Record<string, string | undefined>): Promise<string[]> {
  const r = await readGraphData(tree(files));
  expect(r.tree).toBeUndefined();
  return r.errors.map(formatProblem);
}

describe('graph-data validation', () => {
  it('accepts a valid tree', async () => {
    const r = await readGraphData(tree());
    expect(r.errors).toEqual([]);
    expect(r.tree!.releases).toHaveLength(2);
    expect(r.tree!.blockedEdges[0]!.risk!.name).toBe('Risk');
  });

  it('refuses an unknown schema major and accepts any 1.x minor', async () => {
    expect(await problems({ version: '3.0.0\n' })).toEqual([
      'version: -: schema major version 3 is not supported (this server reads 1.x and 2.x)',
    ]);
    expect((await readGraphData(tree({ version: '1.7.0\n' }))).errors).toEqual([]);
  });

  it('refuses a channel whose name differs from its file, and duplicate names', async () => {
    const p = await problems({ 'channels/fast-4.1.yaml': 'name: stable-4.1\nversions: []\n' });
    expect(p).toContain("channels/fast-4.1.yaml: name: 'stable-4.1' differs from the file name 'fast-4.1'");
    expect(p.some((x) => x.includes("duplicate channel name 'stable-4.1'"))).toBe(true);
  });

  it('refuses a blocked edge that is neither a full risk nor a hard block', async () => {
    const p = await problems({ 'blocked-edges/4.1.1-Half.yaml': 'to: 4.1.1\nfrom: .*\nname: Half\n' });
    expect(p).toContain(
      'blocked-edges/4.1.1-Half.yaml: url: missing: a risk has url, name, message and matchingRules (this file has name); a hard block has only to and from',
    );
    expect(p.filter((x) => x.startsWith('blocked-edges/4.1.1-Half.yaml'))).toHaveLength(3);
    expect(await problems({ 'blocked-edges/x.yaml': 'to: 4.1.1\nfrom: .*\ncolour: red\n' })).toEqual([
      'blocked-edges/x.yaml: colour: unknown key (a blocked edge has to, from, fixedIn, url, name, message, matchingRules, autoExtend)',
    ]);
  });

  it('refuses a risk url that is not a URI, an empty rule list and a malformed PromQL rule', async () => {
    const base = 'to: 4.1.1\nfrom: .*\nname: R\nmessage: m\n';
    expect(
      await problems({ 'blocked-edges/a.yaml': `${base}url: not a uri\nmatchingRules:\n- type: Always\n` }),
    ).toEqual(["blocked-edges/a.yaml: url: 'not a uri' is not a URI"]);
    expect(await problems({ 'blocked-edges/a.yaml': `${base}url: https://x.example/\nmatchingRules: []\n` })).toEqual([
      'blocked-edges/a.yaml: matchingRules: must be a non-empty list of rules',
    ]);
    const promql = await problems({
      'blocked-edges/a.yaml': `${base}url: https://x.example/\nmatchingRules:\n- type: PromQL\n  promql: {}\n`,
    });
    expect(promql[0]).toMatch(/^blocked-edges\/a.yaml: matchingRules\[0\]\.promql/);
  });

  it('keeps a rule of an unknown type with a warning', async () => {
    const r = await readGraphData(
      tree({
        'blocked-edges/4.1.1-Risk.yaml':
          'to: 4.1.1\nfrom: .*\nurl: https://x.example/\nname: R\nmessage: m\nmatchingRules:\n- type: Telepathy\n  mood: bad\n',
      }),
    );
    expect(r.errors).toEqual([]);
    expect(r.warnings.map(formatProblem)).toEqual([
      "blocked-edges/4.1.1-Risk.yaml: matchingRules[0].type: unknown rule type 'Telepathy': kept and served (clusters skip rule types they do not know)",
    ]);
    expect(r.tree!.blockedEdges[0]!.risk!.matchingRules).toEqual([{ type: 'Telepathy', mood: 'bad' }]);
  });

  it('refuses a from regex that does not compile and a feeder filter likewise', async () => {
    const p = await problems({
      'blocked-edges/b.yaml': 'to: 4.1.1\nfrom: "4[.1"\n',
      'channels/stable-4.1.yaml':
        'name: stable-4.1\nversions: []\nfeeder:\n  name: fast\n  filter: "(a"\n  delay: soon\n',
    });
    expect(p.some((x) => x.startsWith('blocked-edges/b.yaml: from: invalid regular expression'))).toBe(true);
    expect(p.some((x) => x.startsWith('channels/stable-4.1.yaml: feeder.filter: invalid regular expression'))).toBe(
      true,
    );
    expect(p).toContain(
      "channels/stable-4.1.yaml: feeder.delay: 'soon' is not an ISO-8601 duration such as P1W or PT48H",
    );
  });

  it('refuses a payload that is not pinned by sha256 digest, and an unknown arch', async () => {
    const p = await problems({
      'releases/amd64/4.1.0.json': release('4.1.0', { payload: 'quay.example/ocp/release:4.1.0' }),
      'releases/sparc/4.1.0.json': release('4.1.0'),
      'channels/stable-4.1.yaml': 'name: stable-4.1\nversions:\n- 4.1.0+sparc\n',
    });
    expect(p.some((x) => x.startsWith('releases/amd64/4.1.0.json: payload: '))).toBe(true);
    expect(p).toContain("releases/sparc: -: unknown architecture 'sparc' (known: amd64, arm64, s390x, ppc64le, multi)");
    expect(p).toContain(
      "channels/stable-4.1.yaml: versions[0]: unknown architecture 'sparc' (known: amd64, arm64, s390x, ppc64le, multi)",
    );
  });

  it('refuses a release record whose version or arch disagree with its path', async () => {
    const p = await problems({
      'releases/amd64/4.1.0.json': release('4.1.9'),
      'releases/arm64/4.1.0.json': release('4.1.0'),
    });
    expect(p).toContain("releases/amd64/4.1.0.json: version: '4.1.9' differs from the file name '4.1.0'");
    expect(p).toContain("releases/arm64/4.1.0.json: architecture: 'amd64' but the file is under releases/arm64/");
  });

  it('reports broken YAML and JSON with the file', async () => {
    const p = await problems({
      'channels/stable-4.1.yaml': 'name: [unclosed\n',
      'releases/amd64/4.1.0.json': '{"kind":',
    });
    expect(p.some((x) => x.startsWith('channels/stable-4.1.yaml: -: invalid YAML'))).toBe(true);
    expect(p.some((x) => x.startsWith('releases/amd64/4.1.0.json: -: invalid JSON'))).toBe(true);
  });

  it('refuses a YAML alias bomb without expanding it', async () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x","x"]',
      ...'bcdefghij'.split('').map((k, i) => `${k}: &${k} [${Array(10).fill(`*${'abcdefghij'[i]}`).join(',')}]`),
    ].join('\n');
    const p = await problems({ 'channels/stable-4.1.yaml': `${bomb}\nname: stable-4.1\nversions: []\n` });
    expect(p[0]).toMatch(/^channels\/stable-4.1.yaml: -: invalid YAML: .*alias/i);
  });

  it('reliability finding 5: refuses a file its aliases would make more than 4 times as long: one rule anchored and named 99 times', async () => {
    const head = 'to: 4.1.1\nfrom: 4[.]1[.]0\nurl: https://x.example/1\nname: R\nmessage: m\nmatchingRules:\n';
    const rule = `- &r {type: PromQL, promql: {promql: "${'x'.repeat(200)}"}}\n`;
    const p = await problems({ 'blocked-edges/4.1.1-R.yaml': `${head}${rule}${'- *r\n'.repeat(99)}` });
    expect(p).toEqual([
      expect.stringMatching(
        /^blocked-edges\/4.1.1-R.yaml: -: invalid YAML: its aliases expand it to \d+ characters, more than 4 times its own \d+$/,
      ),
    ]);
    // Named twice, the file stays within the limit and reads as usual.
    const r = await readGraphData(tree({ 'blocked-edges/4.1.1-R.yaml': `${head}${rule}- *r\n- *r\n` }));
    expect(r.errors).toEqual([]);
    expect(r.tree!.blockedEdges[0]!.risk!.matchingRules).toHaveLength(3);
    expect(await problems({ 'channels/stable-4.1.yaml': 'name: stable-4.1\nversions: &v [*v]\n' })).toEqual([
      'channels/stable-4.1.yaml: -: invalid YAML: an alias inside the node it names',
    ]);
  });

  it('refuses a file over the size limit without reading it', async () => {
    const p = await problems({ 'raw/metadata.json': ' '.repeat(MAX_FILE_BYTES + 1) });
    expect(p).toEqual([
      `raw/metadata.json: -: file is ${MAX_FILE_BYTES + 1} bytes, more than the limit of ${MAX_FILE_BYTES}`,
    ]);
  });

  it('refuses a symbolic link that points outside the tree, and follows one inside it', async () => {
    const outside = tempDir();
    dirs.push(outside);
    writeFileSync(join(outside.path, 'secret.yaml'), 'name: stable-4.1\nversions: []\n');
    const root = tree({
      'channels/stable-4.1.yaml': undefined,
      'extra/stable-4.1.yaml': 'name: stable-4.1\nversions: [4.1.0]\n',
    });
    mkdirSync(join(root, 'channels'), { recursive: true });
    symlinkSync(join(outside.path, 'secret.yaml'), join(root, 'channels', 'fast-4.1.yaml'));
    symlinkSync(join(root, 'extra', 'stable-4.1.yaml'), join(root, 'channels', 'stable-4.1.yaml'));
    const r = await readGraphData(root);
    expect(r.errors.map(formatProblem)).toEqual([
      'channels/fast-4.1.yaml: -: symbolic link points outside the graph-data tree',
    ]);
  });

  it('refuses a linked folder that leads outside the tree', async () => {
    const outside = tempDir();
    dirs.push(outside);
    mkdirSync(join(outside.path, 'ch'));
    writeFileSync(join(outside.path, 'ch', 'stable-4.1.yaml'), 'name: stable-4.1\nversions: []\n');
    const root = tree({ 'channels/stable-4.1.yaml': undefined });
    writeFileSync(join(outside.path, 'ch', '4.1.0.json'), release('4.1.0', { architecture: 'arm64' }));
    rmSync(join(root, 'channels'), { recursive: true, force: true });
    symlinkSync(join(outside.path, 'ch'), join(root, 'channels'));
    symlinkSync(join(outside.path, 'ch'), join(root, 'releases', 'arm64'));
    const r = await readGraphData(root);
    expect(r.errors.map(formatProblem)).toEqual([
      'channels/stable-4.1.yaml: -: symbolic link points outside the graph-data tree',
      'releases/arm64/4.1.0.json: -: symbolic link points outside the graph-data tree',
    ]);
  });

  it('reports a folder it cannot read instead of taking it for an absent one', async () => {
    const root = tree({ 'blocked-edges/4.1.1-Risk.yaml': undefined });
    rmSync(join(root, 'blocked-edges'), { recursive: true, force: true });
    symlinkSync('blocked-edges', join(root, 'blocked-edges')); // a link to itself: ELOOP
    const r = await readGraphData(root);
    expect(r.tree).toBeUndefined();
    expect(r.errors.map(formatProblem)).toEqual([
      expect.stringMatching(/^blocked-edges: -: cannot read the folder: ELOOP/),
    ]);
  });

  it('refuses versions that are not strict semver, and computed labels in raw metadata', async () => {
    const p = await problems({
      'releases/amd64/v4.1.0.json': release('v4.1.0'),
      'raw/metadata.json': JSON.stringify({ '4.1.1': { 'release.openshift.io/architecture': 'multi' } }),
    });
    expect(p).toContain(
      "releases/amd64/v4.1.0.json: version: 'v4.1.0' is not a semantic version without build metadata",
    );
    expect(p).toContain(
      'raw/metadata.json: 4.1.1.release.openshift.io/architecture: computed by the server from the release records and channels; it cannot be set here',
    );
  });

  it('reliability finding 13: refuses __proto__, constructor and prototype as metadata keys of a release record or raw metadata', async () => {
    const p = await problems({
      'releases/amd64/4.1.0.json': release('4.1.0').replace('"metadata":{}', '"metadata":{"__proto__":"x"}'),
      'raw/metadata.json': '{"4.1.1": {"constructor": "x", "prototype": "y"}}',
    });
    const reserved = 'reserved: __proto__, constructor and prototype cannot be metadata keys';
    expect(p).toEqual(
      expect.arrayContaining([
        `releases/amd64/4.1.0.json: metadata.__proto__: ${reserved}`,
        `raw/metadata.json: 4.1.1.constructor: ${reserved}`,
        `raw/metadata.json: 4.1.1.prototype: ${reserved}`,
      ]),
    );
  });

  it('refuses a missing version file and versions that are not semver', async () => {
    const p = await problems({
      version: undefined,
      'channels/stable-4.1.yaml': 'name: stable-4.1\nversions:\n- 4.1\n- banana\n',
    });
    expect(p).toContain('version: -: missing: a graph-data tree starts with a version file (1.x)');
    // A plain 4.1 is read as its text, as the reference reads it, not as a number.
    expect(p).toContain("channels/stable-4.1.yaml: versions[0]: '4.1' is not a semantic version");
    const q = await problems({ 'channels/stable-4.1.yaml': 'name: stable-4.1\nversions:\n- "4.1"\n- banana\n' });
    expect(q).toEqual([
      "channels/stable-4.1.yaml: versions[0]: '4.1' is not a semantic version",
      "channels/stable-4.1.yaml: versions[1]: 'banana' is not a semantic version",
    ]);
  });

  it('reads a .tar.gz of a tree, and refuses links inside a tarball', async () => {
    const root = tree();
    const out = tempDir();
    dirs.push(out);
    const file = join(out.path, 'gd.tar.gz');
    await tar.c({ gzip: true, file, cwd: root }, ['.']);
    const r = await readGraphData(file);
    expect(r.errors).toEqual([]);
    expect(r.tree!.releases).toHaveLength(2);
    symlinkSync('/etc/passwd', join(root, 'channels', 'evil.yaml'));
    const evil = join(out.path, 'evil.tar.gz');
    await tar.c({ gzip: true, file: evil, cwd: root }, ['.']);
    const bad = await readGraphData(evil);
    expect(bad.tree).toBeUndefined();
    expect(bad.errors[0]!.message).toMatch(/links are not allowed/);
  });
});
