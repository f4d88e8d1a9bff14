// A hostile registry against `cincy serve` as a process (the project's issue 30): for each attack, a
// server that read the registry once while it behaved is left to its next scrapes while the registry
// plays the attack. What must hold: the failure (or damping) shows on /readyz within the bound, the last
// good graph keeps serving, nothing another host sent is quoted, and memory stays bounded. One row per
// attack: the bound hit, the time from the attack to /readyz saying so, the server's peak RSS, and what
// /readyz said. The registry is test/support/hostileRegistry.ts, bundled with esbuild to run here.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { build } from 'esbuild';
import { peakRssMb, start, stop } from '../bench/procs.mjs';

const SCRAPE_INTERVAL = '2s';
const WAIT_MS = 90_000;
/** How long a fresh server is given to serve the graph of its first read once /readyz named its problems. */
const GRAPH_WAIT_MS = 10_000;

async function loadHostileRegistry(root) {
  const outdir = join(root, 'node_modules', '.cache', 'cincy-reliability');
  mkdirSync(outdir, { recursive: true });
  const outfile = join(outdir, 'hostileRegistry.mjs');
  await build({
    entryPoints: [join(root, 'test', 'support', 'hostileRegistry.ts')],
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'error',
  });
  return import(outfile);
}

function tree(dir) {
  mkdirSync(join(dir, 'channels'), { recursive: true });
  writeFileSync(join(dir, 'version'), '1.1.0\n');
  writeFileSync(join(dir, 'channels', 'stable-4.16.yaml'), 'name: stable-4.16\nversions: [4.16.0, 4.16.1]\n');
  return dir;
}

const readyz = async (url) => {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, text: await res.text() };
};

const graphNodes = async (url) => {
  const res = await fetch(`${url}/graph?channel=stable-4.16`, { headers: { accept: 'application/json' } });
  return res.status === 200 ? (await res.json()).nodes.length : -1;
};

/** A layer trickling a byte every 100 ms against a server whose deadline `flag` is 10 s. */
const trickle = (name, flag, said) => ({
  name,
  attack: { kind: 'trickle-blob', everyMs: 100 },
  flags: [flag, '10'],
  bound: `${flag} 10`,
  said,
  fresh: true,
  slow: true,
});

/** Each attack: what the registry does, the flags of the server, and what /readyz must come to say. */
function attacks(recorder, hostile) {
  const secret = 'SECRET-FROM-ELSEWHERE';
  return [
    {
      name: 'endless tag list, 60,000 new tags a page',
      attack: { kind: 'endless-tags', perPage: 60_000 },
      bound: '--registry-max-tags (100,000)',
      said: /more than 100000 tags/,
    },
    {
      name: 'a repository of 1,000,000 tags',
      attack: { kind: 'many-tags', count: 1_000_000 },
      bound: '--registry-max-tags (100,000)',
      said: /more than 100000 tags/,
    },
    {
      name: 'manifests and blobs redirected to 169.254.169.254',
      attack: { kind: 'redirect', to: 'http://169.254.169.254' },
      bound: 'no redirect to link-local',
      said: /169\.254\.169\.254 is a link-local address/,
      fresh: true,
    },
    {
      name: 'redirected to another port of loopback (answering with a secret)',
      attack: { kind: 'redirect', to: recorder.url },
      bound: "no redirect off the registry's host",
      said: /not the registry's host/,
      fresh: true,
      check: () => recorder.requests.length === 0,
    },
    {
      name: 'error answers whose body holds a secret',
      attack: { kind: 'error-body', body: `${secret} <html>` },
      bound: 'no body quoted',
      said: /: 500/,
      fresh: true,
    },
    {
      name: 'a Bearer realm on another host, given the credentials',
      attack: { kind: 'realm', realm: `${recorder.url}/token` },
      credentials: true,
      bound: 'no credentials to a foreign realm',
      said: /no token from the realm .* asked without credentials/,
      check: () => recorder.requests.every((r) => r.authorization === undefined),
    },
    trickle('a layer trickling a byte every 100 ms', '--registry-request-deadline', /no whole answer within 10 s/),
    trickle('the same, under one deadline for the scrape', '--registry-scrape-deadline', /did not end within 10 s/),
    {
      name: 'layers that never end',
      attack: { kind: 'endless-blob' },
      bound: '1 GiB unpacked per layer',
      // Each image is left out, named; the scrape itself holds (with no release).
      said: /unpacks to more than 1073741824 bytes/,
      fresh: true,
      slow: true,
    },
    {
      name: 'an 8 MB layer unpacking to 8 GiB',
      attack: { kind: 'bomb', bytes: 8 * 1024 ** 3 },
      bound: '1 GiB unpacked per layer',
      said: /unpacks to more than 1073741824 bytes/,
      fresh: true,
      slow: true,
      nodes: 1,
    },
    {
      name: 'names that are not tags (../../v2/…, ?x=1)',
      attack: { kind: 'bad-tags', names: ['../../../../v2/ocp/graph-data/manifests/latest', 'a?x=1'] },
      bound: 'the tag grammar',
      said: /name\(s\) that are not tags were left out/,
      check: () => !hostile.requests.some((r) => r.includes('..') || r.includes('x=1')),
    },
    {
      name: 'a graph-data image tag moving between two images every scrape',
      attack: { kind: 'alternate-graph-data' },
      graphDataImage: true,
      bound: 'damping: a flip back waits for two agreeing reads',
      said: /"flapping"/,
    },
    {
      name: 'a graph-data image of 100,001 files',
      attack: { kind: 'many-entries', files: 100_001 },
      graphDataImage: true,
      bound: '100,000 entries of a tree',
      said: /more than 100000 entries/,
    },
  ];
}

/** Attacks played at once: most wait on a deadline (10 s, 25 s) rather than use a core. */
const CONCURRENT_ATTACKS = 3;

export async function hostileRegistry({ root, cli, workDir, log }) {
  const { startHostileRegistry, startRecorder } = await loadHostileRegistry(root);
  const listed = attacks({ url: '', requests: [] }, { requests: [] });
  const rows = new Array(listed.length);
  // The attacks that wait out a deadline (`slow`) start first, so the run ends with short ones.
  const order = [...listed.keys()].sort((i, j) => Number(!!listed[j].slow) - Number(!!listed[i].slow));
  // Each attack has a registry and a recorder of its own, so what one attack's check counts is its own.
  const player = async () => {
    for (let i = order.shift(); i !== undefined; i = order.shift()) {
      const closers = [];
      try {
        const cleanup = { add: (f) => closers.push(f) };
        const recorder = await startRecorder(cleanup);
        const hostile = await startHostileRegistry(cleanup);
        const a = attacks(recorder, hostile)[i];
        const r = (rows[i] = await attackOne(a, { cli, workDir, hostile, recorder }));
        log(`hostile registry: ${a.name}: ${r.held ? 'held' : 'DID NOT HOLD'} in ${r.seconds} s (${r.said})`);
      } finally {
        for (const f of closers.reverse()) await f();
      }
    }
  };
  // Every player ends before this does (one that failed does not leave the others' servers running).
  const ended = await Promise.allSettled(Array.from({ length: CONCURRENT_ATTACKS }, player));
  const failed = ended.find((e) => e.status === 'rejected');
  if (failed) throw failed.reason;
  return rows;
}

/**
 * One attack on a server of its own. An attack on what a scrape reads (manifests, blobs) meets a server's
 * first scrape (a server that read the images already would not read them again); any other meets a
 * server that read the registry once while it behaved, whose last good graph must keep serving.
 */
async function attackOne(a, { cli, workDir, hostile, recorder }) {
  hostile.attack = a.fresh ? a.attack : { kind: 'none' };
  recorder.requests.length = 0;
  const dir = mkdtempSync(join(workDir, 'hostile-'));
  const flags = [...(a.flags ?? [])];
  if (a.credentials) {
    const creds = join(dir, 'config.json');
    const auth = Buffer.from('mirror:s3cret').toString('base64');
    writeFileSync(creds, JSON.stringify({ auths: { [hostile.host]: { auth } } }));
    flags.push('--registry-credentials', creds);
  }
  if (a.graphDataImage) flags.push('--graph-data-image', hostile.graphDataImage);
  else flags.push('--graph-data', tree(join(dir, 'tree')));
  // Any free port (0), read from the server's "listening at" line: attacks run at once, and a port picked
  // free beforehand could be taken by another attack's server before this one binds it.
  const args = ['serve', '--db', join(dir, 'cincy.db'), '--port', '0', '--log-level', 'info'];
  args.push('--releases', hostile.repository, '--scrape-interval', SCRAPE_INTERVAL, ...flags);
  const t0 = performance.now();
  const proc = start('cincy serve', cli, args);
  let url = '';
  try {
    await until(async () => {
      url ||= /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(proc.output)?.[1] ?? '';
      return !proc.exited && !!url && (await fetch(`${url}/livez`)).status === 200;
    }, 'listening');
    if (!a.fresh) {
      await until(async () => (await readyz(url)).status === 200, 'ready while the registry behaves');
      hostile.attack = a.attack;
    }
    return await watch(a, proc, url, hostile, recorder, a.fresh ? t0 : performance.now());
  } catch (err) {
    return { attack: a.name, bound: a.bound, held: false, seconds: '—', rss: '—', said: err.message.split('\n')[0] };
  } finally {
    if (!proc.exited) await stop(proc);
  }
}

async function until(f, what) {
  const end = performance.now() + WAIT_MS;
  while (!(await f().catch(() => false))) {
    if (performance.now() > end) throw new Error(`not ${what} within ${WAIT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Watches a server under attack until /readyz says what the attack must lead to (or, for an attack the
 * scrape survives, until three scrapes went by), then checks the graph it serves, that no secret leaked,
 * and the attack's own check.
 */
async function watch(a, proc, url, hostile, recorder, t0) {
  let last = { status: 0, text: '' };
  let seen = false;
  const scrapes = () => hostile.requests.filter((r) => r.includes('/tags/list')).length;
  const startScrapes = scrapes();
  while (performance.now() - t0 < WAIT_MS && !proc.exited) {
    last = await readyz(url).catch(() => ({ status: 0, text: '' }));
    if (a.said ? a.said.test(last.text) : scrapes() - startScrapes >= 3) {
      seen = true;
      break;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const seconds = (performance.now() - t0) / 1000;
  const rss = proc.exited ? undefined : peakRssMb(proc.child.pid);
  // A server that read the registry once serves its two releases throughout; a fresh one serves what it could
  // read, once the graph of its first read is built: /readyz names the read's problems when the read ends,
  // a moment before that graph is swapped in, so a fresh server is given GRAPH_WAIT_MS for it.
  const holds = (n) => (a.fresh || a.graphDataImage ? n >= (a.nodes ?? 0) : n === 2);
  let nodes = await graphNodes(url).catch(() => -1);
  for (const end = performance.now() + GRAPH_WAIT_MS; a.fresh && !holds(nodes) && performance.now() < end;) {
    await new Promise((r) => setTimeout(r, 200));
    nodes = await graphNodes(url).catch(() => -1);
  }
  const graphHeld = holds(nodes);
  const leaked = /SECRET/.test(last.text);
  const checked = a.check ? a.check() : true;
  const message =
    /"problems":\["((?:[^"\\]|\\.)*)"/.exec(last.text)?.[1] ??
    /"message":"((?:[^"\\]|\\.)*)"/.exec(last.text)?.[1] ??
    /"flapping":\{[^}]*\}/.exec(last.text)?.[0] ??
    /"warnings":\["((?:[^"\\]|\\.)*)"/.exec(last.text)?.[1] ??
    '';
  const notes = [leaked && 'LEAKED A SECRET', !checked && 'CHECK FAILED', !graphHeld && `graph: ${nodes} nodes`];
  return {
    attack: a.name,
    bound: a.bound,
    held: seen && !proc.exited && !leaked && checked && graphHeld,
    seconds: seconds.toFixed(1),
    rss: rss === undefined ? 'exited' : `${rss.toFixed(0)} MB`,
    said: `${last.status} ${message.slice(0, 150)}${notes
      .filter(Boolean)
      .map((n) => ` (${n})`)
      .join('')}`,
  };
}
