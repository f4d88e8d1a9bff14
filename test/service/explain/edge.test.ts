// The edge explainer on real pairs of the conformance set, whose answer is read from its files (release
// records, channels, blocked-edges), on the graph a server in this process built from the set.
// test/unit/explain/edge.test.ts has each reason on small constructed inputs.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { explainEdge, type Explanation } from '../../../src/explain/edge.js';
import { compilePattern } from '../../../src/graph/pattern.js';
import { CONFORMANCE_DIR, conformanceAvailable } from '../../support/conformance.js';
import { startServer, type TestServer } from '../../support/server.js';

describe.runIf(conformanceAvailable())('explain: real pairs of the conformance set', () => {
  const dir = join(CONFORMANCE_DIR, 'real-2024-08-09', 'graph-data');
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ graphData: dir });
  }, 120_000);
  afterAll(async () => server.close());
  const ask = (from: string, to: string, channel: string): Explanation =>
    explainEdge(server.service.current!.graph, server.service.current!.input, { from, to, channel, arch: 'amd64' });
  const releaseFile = (v: string): { previous: string[]; next?: string[] } =>
    JSON.parse(readFileSync(join(dir, 'releases', 'amd64', `${v}.json`), 'utf8')) as { previous: string[] };

  it('4.13.17 -> 4.14.0 in stable-4.14: conditional, with the risks of the blocked-edges files that match', () => {
    expect(releaseFile('4.14.0').previous).toContain('4.13.17');
    const files = readdirSync(join(dir, 'blocked-edges'))
      .filter((f) => f.startsWith('4.14.0-') && !/^4\.14\.0-(ec|rc)\./.test(f))
      .map((f) => ({
        id: f.replace(/\.yaml$/, ''),
        ...(parseYaml(readFileSync(join(dir, 'blocked-edges', f), 'utf8')) as { from: string; name?: string }),
      }))
      .filter((b) => b.name !== undefined && compilePattern(b.from).test('4.13.17+amd64'));
    expect(files.map((f) => f.id)).toContain('4.14.0-ARODNSWrongBootSequence');
    const e = ask('4.13.17', '4.14.0', 'stable-4.14');
    expect(e.code).toBe('conditional');
    expect(e.risks!.map((r) => r.name).sort()).toEqual(files.map((f) => f.name).sort());
    expect(e.blockedBy!.map((b) => b.id).sort()).toEqual(files.map((f) => f.id).sort());
  });

  it('4.4.3 -> 4.4.16 in stable-4.5: not listed by either release record', () => {
    expect(releaseFile('4.4.16').previous).not.toContain('4.4.3');
    expect(releaseFile('4.4.3').next ?? []).not.toContain('4.4.16');
    expect(ask('4.4.3', '4.4.16', 'stable-4.5').code).toBe('not-listed');
    expect(releaseFile('4.4.4').previous).toContain('4.4.3');
    expect(ask('4.4.3', '4.4.4', 'stable-4.5').code).toBe('recommended');
  });

  it('4.13.17 -> 4.14.0 in stable-4.13: 4.14.0 is not in that channel, and the channels that have it', () => {
    const having = readdirSync(join(dir, 'channels'))
      .filter((f) =>
        (parseYaml(readFileSync(join(dir, 'channels', f), 'utf8')) as { versions: string[] }).versions.includes(
          '4.14.0',
        ),
      )
      .map((f) => f.replace(/\.yaml$/, ''))
      .sort();
    const e = ask('4.13.17', '4.14.0', 'stable-4.13');
    expect(e.code).toBe('not-in-channel');
    expect(e.notInChannel!.map((n) => n.version)).toEqual(['4.14.0']);
    expect([...e.notInChannel![0]!.channels].sort()).toEqual(having);
  });
});
