// `cincy path` and `cincy explain`, run as processes against a listening server in this process on the
// bundled graph-data. The API they ask is tested in test/service/server/routes/api/v1/paths.test.ts.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cincyAsync } from '../support/cli.js';
import { startServer, type TestServer } from '../support/server.js';
import type { Paths } from '../support/pathsAnswer.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ graphData: join(import.meta.dirname, '..', '..', 'graph-data') });
}, 60_000);
afterAll(async () => server.close());

describe('cincy path and cincy explain', () => {
  it('print the compact form and -o json', async () => {
    const env = { CINCY_SERVER: server.url };
    const path = await cincyAsync(['path', '4.14.1', '4.14.14', '--limit', '2'], env);
    expect(path.code, path.stderr).toBe(0);
    expect(path.stdout).toContain('path 1: 1 hop, 0 channel switches');
    expect(path.stdout).toContain('4.14.1 -> 4.14.14  (recommended)');
    const eus = await cincyAsync(['path', '4.14.10', '4.16.5', '--eus', '--accept-risks', 'A,B', '-o', 'json'], env);
    expect((JSON.parse(eus.stdout) as Paths).notes.join()).toContain('pause the worker');
    const none = await cincyAsync(['path', '4.18.4', '4.12.10'], env);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain('no path (amd64)');
    const explained = await cincyAsync(['explain', '4.12.10', '4.12.11', '--channel', 'stable-4.12'], env);
    expect(explained.code, explained.stderr).toBe(0);
    expect(explained.stdout).toContain('4.12.10 -> 4.12.11 in stable-4.12 (amd64): edge [conditional]');
    expect(explained.stdout).toContain('risk RHELKubeletMemoryPressureMisread');
    const json = await cincyAsync(['explain', '4.12.10', '4.13.0', '--channel', 'stable-4.12', '-o', 'json'], env);
    const outside = JSON.parse(json.stdout) as { code: string; notInChannel: Array<{ channels: string[] }> };
    expect(outside.code).toBe('not-in-channel');
    // The VersionNotFound help: the human form names the channels that have the version.
    const human = await cincyAsync(['explain', '4.12.10', '4.13.0', '--channel', 'stable-4.12'], env);
    expect(human.stdout).toContain(
      `4.13.0 is not in stable-4.12 (it is in ${outside.notInChannel[0]!.channels.join(', ')})`,
    );
    // A mistyped channel: the closest one is offered, by path and by explain.
    const typoPath = await cincyAsync(['path', '4.14.1', '4.14.14', '--channel', 'stabel-4.14'], env);
    expect(typoPath.code).toBe(1);
    expect(typoPath.stdout).toContain('no release is in a channel named stabel-4.14: did you mean stable-4.14?');
    const typoExplain = await cincyAsync(['explain', '4.12.10', '4.12.11', '--channel', 'stable-412'], env);
    expect(typoExplain.stdout).toContain('there is no public channel stable-412: did you mean stable-4.12?');
    const bad = await cincyAsync(['explain', '4.12.10', 'x', '--channel', 'stable-4.12'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('querystring/to');
  }, 60_000);
});
