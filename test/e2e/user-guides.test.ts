// The user guides as a reader follows them: every ```sh block of docs/user/*.md is either run here, as
// written, by bash in a folder of its own, or preceded in the guide by a comment saying why it cannot run
// here and what test does its work instead (`<!-- not run by the tests: … -->`). What the runner changes,
// and only that: the port (`CINCY_PORT`, and `8080` in the guide's URLs, become a free port), `npx cincy`
// (this checkout's bin/cincy.js, as npx in the checkout would run it) and `cincy` on the PATH (the same),
// and a server started beforehand where the guide says one is running. Blocks that show `$ command` and
// its output are run command by command, and the output compared with the guide's (a line cut with `…`
// up to the cut; JSON as JSON).
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveCli, useCleanup } from '../support/cli.js';

const cleanup = useCleanup();
const ROOT = resolve(import.meta.dirname, '..', '..');
const GUIDES = join(ROOT, 'docs', 'user');
const NOT_RUN = /<!-- not run by the tests: (.+?) -->\s*$/;

interface Block {
  guide: string;
  line: number;
  text: string;
  /** Why it is not run, from the comment before it. */
  notRun?: string;
}

/** Every ```sh block of the guides, with the comment before it, if any. */
function blocks(): Block[] {
  const found: Block[] = [];
  for (const guide of readdirSync(GUIDES).filter((f) => f.endsWith('.md'))) {
    const lines = readFileSync(join(GUIDES, guide), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const open = /^(\s*)```sh\s*$/.exec(lines[i]!);
      if (!open) continue;
      const end = lines.findIndex((l, j) => j > i && l.trim() === '```');
      const indent = open[1]!.length;
      const text = lines
        .slice(i + 1, end)
        .map((l) => l.slice(indent))
        .join('\n');
      const before =
        lines
          .slice(0, i)
          .reverse()
          .find((l) => l.trim() !== '') ?? '';
      const notRun = NOT_RUN.exec(before)?.[1];
      found.push({ guide, line: i + 1, text, ...(notRun && { notRun }) });
      i = end;
    }
  }
  return found;
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => ok(port));
    });
  });
}

/** A reader's folder: the checkout's bin/ and demo graph-data/ beside, `cincy` on the PATH. */
function readerFolder(): string {
  const dir = cleanup.dir();
  symlinkSync(join(ROOT, 'bin'), join(dir, 'bin'));
  symlinkSync(join(ROOT, 'graph-data'), join(dir, 'graph-data'));
  mkdirSync(join(dir, '.path'));
  const shim = join(dir, '.path', 'cincy');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'bin', 'cincy.js')}" "$@"\n`);
  chmodSync(shim, 0o755);
  return dir;
}

/** Runs a block with bash in `dir`; its output. A server it leaves running is stopped with its process group. */
async function runBlock(
  block: string,
  dir: string,
  port: number,
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string }> {
  const prelude =
    'set -euo pipefail\n' +
    // `npx cincy` as in the checkout: this checkout's CLI.
    `npx() { if [ "$1" = cincy ]; then shift; cincy "$@"; else command npx "$@"; fi; }\n`;
  const script = prelude + block.replace(/8080/g, String(port));
  const child = spawn('bash', ['-c', script], {
    cwd: dir,
    detached: true,
    env: {
      ...process.env,
      PATH: `${join(dir, '.path')}:${process.env.PATH}`,
      CINCY_PORT: String(port),
      USER: process.env.USER ?? 'reader',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanup.add(() => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // the group has ended
    }
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  // On the shell's exit: a server the block left running keeps the pipes open.
  const code = await new Promise<number | null>((ok) => child.on('exit', ok));
  await new Promise((r) => setTimeout(r, 200));
  return { code, out };
}

/** Compares `$ command` blocks: each command run, its output as the guide shows it. */
function checkTranscript(block: string, env: Record<string, string>, port: number): void {
  const steps = block.split(/^\$ /m).filter((s) => s.trim() !== '');
  for (const step of steps) {
    const [command, ...shown] = step.replace(/\n$/, '').split('\n');
    const r = spawnSync('bash', ['-c', command!.replace(/8080/g, String(port))], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
      timeout: 60_000,
    });
    expect(r.status, `${command}\n${r.stderr}`).toBe(0);
    if (command!.startsWith('curl')) {
      expect(JSON.parse(r.stdout), command).toEqual(JSON.parse(shown.join('')));
      continue;
    }
    const got = r.stdout.replace(/\n$/, '').split('\n');
    expect(got.length, `${command}\n${r.stdout}`).toBe(shown.length);
    shown.forEach((line, i) => {
      const cut = line.indexOf('…');
      if (cut < 0) expect(got[i], command).toBe(line);
      else expect(got[i]!.startsWith(line.slice(0, cut)), `${command}: ${got[i]} is not ${line}`).toBe(true);
    });
  }
}

/** What runs each block that is run: keyed by guide and a line the block holds. */
const RUNNERS: Array<{ guide: string; holds: string; run: (block: string) => Promise<void> }> = [
  {
    guide: 'admin-api.md',
    holds: 'serve --demo --admin-jwt-secret-file admin-secret &',
    run: async (block) => {
      const dir = readerFolder();
      const r = await runBlock(block, dir, await freePort());
      expect(r.code, r.out).toBe(0);
      expect(r.out).toMatch(/stored 1 new release/);
      expect(r.out).toMatch(/promoted/);
    },
  },
  {
    guide: 'fleet.md',
    holds: 'cincy fleet updates --since 7d',
    run: async (block) => {
      const dir = readerFolder();
      const server = await demoWithAdminSecret(dir);
      // Clusters polling, as they would be by the time a reader asks, and written (a flush every 5 s).
      for (let i = 0; i < 20; i++) {
        const id = `0000000${i % 10}-0000-4000-8000-00000000000${i % 10}`;
        await fetch(`${server.url}/graph?channel=stable-4.16&arch=amd64&id=${id}&version=4.16.${i < 10 ? 3 : 5}`);
      }
      const token = mint(dir, 'fleet:read');
      const until = Date.now() + 30_000;
      for (;;) {
        const res = await fetch(`${server.url}/api/v1/fleet`, { headers: { authorization: `Bearer ${token}` } });
        if (((await res.json()) as { clusters: number }).clusters === 10) break;
        if (Date.now() > until) throw new Error('the polls were not written within 30 s');
        await new Promise((r) => setTimeout(r, 250));
      }
      const port = Number(new URL(server.url).port);
      const r = await runBlock(block, dir, port);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toMatch(/clusters 10,/);
      expect(r.out).toMatch(/4\.16\.3 +4\.16\.5 +amd64 +10 /);
    },
  },
  {
    guide: 'update-paths.md',
    holds: "$ curl -s 'localhost:8080/api/v1/paths",
    run: async (block) => transcriptOnDemo(block),
  },
  {
    guide: 'update-paths.md',
    holds: '$ cincy explain 4.12.10 4.12.11 --channel stable-4.12',
    run: async (block) => transcriptOnDemo(block),
  },
  {
    guide: 'webhooks.md',
    holds: 'cincy webhooks add https://hooks.example.com/cincy',
    run: async (block) => {
      const dir = readerFolder();
      const server = await demoWithAdminSecret(dir);
      // The guide's <id>: the webhook it added, as `cincy webhooks ls` shows it.
      const id =
        '$(cincy webhooks ls -o json | node -e "process.stdin.on(\'data\', (b) => console.log(JSON.parse(b).webhooks[0].id))")';
      const r = await runBlock(block.replace(/<id>/g, id), dir, Number(new URL(server.url).port), {
        CINCY_SERVER: server.url,
        CINCY_TOKEN: mint(dir, 'webhooks:write'),
      });
      expect(r.code, r.out).toBe(0);
      expect(r.out).toMatch(/hooks\.example\.com/);
    },
  },
  {
    guide: 'rollouts.md',
    holds: 'cincy rollout declare --channel stable-4.16',
    run: async (block) => {
      const dir = readerFolder();
      writeFileSync(join(dir, 'admin-secret'), 'a-reader-admin-secret-of-more-than-32-bytes\n');
      // The guide's <id>: the rollout it declared, as `cincy rollout ls` shows it.
      const id =
        '$(cincy rollout ls -o json | node -e "process.stdin.on(\'data\', (b) => console.log(JSON.parse(b).rollouts[0].id))")';
      const r = await runBlock(block.replace(/<id>/g, id), dir, await freePort());
      expect(r.code, r.out).toBe(0);
      for (const phase of ['rolling', 'halted', 'cancelled']) expect(r.out).toMatch(new RegExp(` ${phase} `));
    },
  },
  {
    guide: 'serving.md',
    holds: 'cincy validate ./graph-data',
    run: async (block) => {
      const dir = readerFolder();
      symlinkSync(join(ROOT, 'graph-data'), join(dir, 'my-graph-data'));
      const exported = join(dir, 'exported');
      const r = await runBlock(block.replace(/\/tmp\/exported/g, exported), dir, await freePort());
      expect(r.code, r.out).toBe(0);
      expect(readdirSync(exported)).toContain('channels');
    },
  },
  {
    guide: 'replace-osus.md',
    holds: 'kubectl kustomize deploy/operator',
    run: async (block) => {
      const dir = readerFolder();
      cpSync(join(ROOT, 'deploy'), join(dir, 'deploy'), { recursive: true });
      const r = await runBlock(block, dir, await freePort());
      expect(r.code, r.out).toBe(0);
      const image = 'mirror.example.com:8443/cincy/cincy:0.1.0';
      expect(r.out).toContain(`image: ${image}`);
      expect(r.out).toContain(`value: ${image}`);
    },
  },
];

/** `serve --demo` in the reader's folder with an admin secret there (`admin-secret`), as the guides start it. */
function demoWithAdminSecret(dir: string): ReturnType<typeof serveCli> {
  writeFileSync(join(dir, 'admin-secret'), 'a-reader-admin-secret-of-more-than-32-bytes\n');
  return serveCli(['--demo', '--admin-jwt-secret-file', 'admin-secret'], cleanup, {}, 'built', dir);
}

/** A token of `scope` from the folder's admin secret, minted as the guides mint them. */
function mint(dir: string, scope: string): string {
  const r = spawnSync(
    process.execPath,
    [
      join(ROOT, 'bin', 'cincy.js'),
      'token',
      'create',
      '--admin-jwt-secret-file',
      join(dir, 'admin-secret'),
      '--scope',
      scope,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.trim();
}

/** A transcript block against `npm start`'s server: the demo, as the guide has it running. */
async function transcriptOnDemo(block: string): Promise<void> {
  const dir = readerFolder();
  const server = await serveCli(['--demo'], cleanup, {}, 'built', dir);
  const port = Number(new URL(server.url).port);
  checkTranscript(block, { PATH: `${join(dir, '.path')}:${process.env.PATH}`, CINCY_SERVER: server.url }, port);
}

describe('the user guides, as written', () => {
  const all = blocks();

  it('has each shell block run here, or saying in the guide why not and what runs instead', () => {
    const unaccounted = all
      .filter((b) => !b.notRun && !RUNNERS.some((r) => r.guide === b.guide && b.text.includes(r.holds)))
      .map((b) => `${b.guide}:${b.line}`);
    expect(unaccounted).toEqual([]);
    // A runner whose block went away (or was marked not run) is a runner of nothing.
    for (const r of RUNNERS) {
      const b = all.find((x) => x.guide === r.guide && x.text.includes(r.holds));
      expect(b, `${r.guide}: no block holds ${r.holds}`).toBeDefined();
      expect(b!.notRun, `${r.guide}:${b!.line} is run, and says it is not`).toBeUndefined();
    }
  });

  for (const r of RUNNERS)
    it(`${r.guide}: the block with ${r.holds.slice(0, 48)}`, async () => {
      const block = all.find((b) => b.guide === r.guide && b.text.includes(r.holds))!;
      await r.run(block.text);
    });
});
