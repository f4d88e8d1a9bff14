// The README's "Try it" block, run as a new user runs it: top to bottom in one bash, in a folder that has
// this clone's bin/ (its own ./data is made there), on a free port instead of 8080. It must start its server, answer
// every request, stop the server it started, and leave behind only files the repository ignores.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCleanup } from '../support/cli.js';
import { freePort } from '../support/prometheus.js';

const cleanup = useCleanup();
const ROOT = join(import.meta.dirname, '..', '..');

/** The first ```sh block after the heading `## Try it`. */
function tryItBlock(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Try it\n'));
  const m = /```sh\n([\s\S]*?)```/.exec(section);
  if (!m) throw new Error('README.md: no sh block under "## Try it"');
  return m[1]!;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return lstatSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const tools = ['/usr/bin/curl', '/usr/bin/jq'];

describe.runIf(
  tools.every((t) => existsSync(t)) ||
    (process.env.CI === 'true'
      ? (() => {
          throw new Error(`${tools.join(' and ')} missing (CI=true: .ci/run installs curl and jq)`);
        })()
      : (console.warn(
          `\n*** SKIPPING the README's Try it: needs ${tools.join(' and ')} (apt-get install curl jq) ***\n`,
        ),
        false)),
)("the README's Try it", () => {
  it(
    'runs top to bottom in one shell, stops its server and leaves only ignored files',
    { timeout: 120_000 },
    async () => {
      const port = await freePort();
      const script = tryItBlock().replaceAll('8080', String(port));
      const where = cleanup.dir();
      symlinkSync(join(ROOT, 'bin'), join(where, 'bin'));
      const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          'bash',
          ['-eo', 'pipefail', '-c', script],
          { cwd: where, timeout: 90_000, env: { ...process.env, CINCY_LOG_LEVEL: 'warn' } },
          (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
        ),
      );
      expect(run.code, run.stderr).toBe(0);
      // The server's log lines come on the same output: the count of stable-4.16's nodes is the first number.
      const count = run.stdout.split('\n').find((line) => /^\d+$/.test(line));
      expect(Number(count)).toBeGreaterThan(10);
      expect(run.stdout).toContain('"kind":"invalid_params"');
      expect(run.stdout).toMatch(/^etag: /im);
      expect(run.stdout).toContain('no release is in a channel named stabel-4.16: did you mean stable-4.16?');
      expect(run.stdout).toContain('"demo":true');
      // The server it started is gone: the port refuses.
      const refused = await new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => (socket.destroy(), resolve(false)));
        socket.on('error', () => resolve(true));
      });
      expect(refused).toBe(true);
      const made = filesUnder(where)
        .map((f) => relative(where, f))
        .filter((f) => !f.startsWith('bin'));
      expect(made.length).toBeGreaterThan(0);
      const ignored = execFileSync('git', ['check-ignore', '--no-index', ...made], { cwd: ROOT, encoding: 'utf8' });
      expect(ignored.trim().split('\n').sort()).toEqual(made.sort());
    },
  );
});
