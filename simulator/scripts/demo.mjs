#!/usr/bin/env node
// `npm run demo`: an update from start to finish on this machine. It starts the graph server on the
// bundled graph-data and picks an update; where Debian's docker-registry is installed it starts one,
// pushes both releases to it with `cincy payload push` and serves the graph again from the registry's
// release images (`cincy serve --releases`) and the bundled channels and risks, so the mock cluster's
// payload Job pulls the payload from the registry; without it, the payloads go to the local payload
// store. It signs the target release through the admin API, starts a mock cluster on a fast clock and
// the agent, asks for the update with `cincy adm upgrade --to`, and shows the progress until every node
// runs the new version (DEMO_REGISTRY=0 leaves the registry out, DEMO_TIME_SCALE sets the clock's speed).
// Everything lives in a temporary folder and stops at the end (or on Ctrl-C). `--image-based` shows an
// image-based upgrade of a single-node cluster instead (scripts/demoImageBased.mjs).
// `npm run demo -- --workload-locks`: the cluster has simulated OpenStack and Ceph controllers holding
// workload locks (lcm.mirantis.com), and the update goes through the seed-004 phases, shown by
// `cincy get maintenance` whenever the phase changes.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '../../scripts/bench/http.mjs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { imageBasedDemo } from './demoImageBased.mjs';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'cincy.js');
const GRAPH_DATA = join(import.meta.dirname, '..', '..', 'graph-data');
const DOCKER_REGISTRY = '/usr/bin/docker-registry';
const WORKLOAD_LOCKS = process.argv.slice(2).includes('--workload-locks');
const SCALE = Number(process.env.DEMO_TIME_SCALE ?? 100); // 90 simulated minutes in about a minute
const dir = mkdtempSync(join(tmpdir(), 'cincy-demo-'));
const children = [];

const say = (text) => process.stdout.write(`\x1b[1m» ${text}\x1b[0m\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function cincy(...args) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`cincy ${args.join(' ')} failed (${r.status}):\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** Starts a long-running cincy command; resolves with the first match of `ready` in its output. */
function start(name, args, ready) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (b) => {
      out += b.toString();
      const m = ready.exec(out);
      if (m) resolve(m);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${name} exited ${code}:\n${out}`)));
  });
}

/** Starts docker-registry on a free port, storage in the demo's folder; resolves with its host:port once it answers. */
async function startRegistry() {
  const host = `127.0.0.1:${await freePort()}`;
  const config = join(dir, 'registry.yml');
  writeFileSync(
    config,
    [
      'version: 0.1',
      'log: {level: error, accesslog: {disabled: true}}',
      `storage: {filesystem: {rootdirectory: ${join(dir, 'registry')}}}`,
      `http: {addr: '${host}', secret: cincy-demo}`,
      '',
    ].join('\n'),
  );
  const child = spawn(DOCKER_REGISTRY, ['serve', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let err = '';
  child.stderr.on('data', (b) => (err += b.toString()));
  for (const started = Date.now(); ;) {
    if (
      await fetch(`http://${host}/v2/`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return host;
    if (child.exitCode !== null || Date.now() - started > 15_000)
      throw new Error(`docker-registry did not start:\n${err}`);
    await sleep(50);
  }
}

/** Starts `cincy serve` with the demo's keys and admin secret; resolves with its URL once it serves a graph. */
async function serve(db, ...args) {
  const [, url] = await start(
    'cincy serve',
    [
      'serve',
      '--port',
      '0',
      '--db',
      join(dir, db),
      '--trust-keys',
      join(dir, 'trust'),
      '--admin-jwt-secret-file',
      join(dir, 'admin.secret'),
      '--log-level',
      'info',
      ...args,
    ],
    /Server listening at (http:\/\/127\.0\.0\.1:\d+)/,
  );
  // It listens first, then imports and builds: the graph is served once it is ready (or, with registry
  // sources, once /readyz says why it waits for them).
  for (;;) {
    const body = await (await fetch(`${url}/readyz`)).json();
    if (body.graph) return url;
    await sleep(100);
  }
}

function stop() {
  for (const c of children) c.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}

/** Stops the children and waits until they have exited (the mock cluster writes its state as it stops), then cleans up. */
async function stopAndWait() {
  const exited = children
    .filter((c) => c.exitCode === null && c.signalCode === null)
    .map((c) => new Promise((r) => c.once('exit', r)));
  for (const c of children) c.kill('SIGTERM');
  await Promise.race([Promise.all(exited), sleep(10_000)]);
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}
process.on('SIGINT', () => {
  stop();
  process.exit(130);
});

async function main() {
  say(`working in ${dir}; simulated time runs ${SCALE}× faster`);
  const keys = join(dir, 'keys');
  const trust = join(dir, 'trust');
  cincy('keys', 'generate', '--kid', 'demo', '--out', keys);
  mkdirSync(trust);
  copyFileSync(join(keys, 'demo.jwks.json'), join(trust, 'demo.jwks.json'));
  const secret = join(dir, 'admin.secret');
  writeFileSync(secret, randomBytes(32).toString('hex'), { mode: 0o600 });

  say('starting the graph server on the bundled graph-data');
  const first = children.length;
  let server = await serve('cincy.db', '--demo');
  const graph = await (
    await fetch(`${server}/graph?channel=stable-4.16&arch=amd64`, { headers: { accept: 'application/json' } })
  ).json();
  // The newest 4.16 release with an unconditional edge from a 4.15 release, and the newest such 4.15.
  let from;
  let to;
  for (const [a, b] of graph.edges) {
    const [x, y] = [graph.nodes[a], graph.nodes[b]];
    if (!x.version.startsWith('4.15.') || !/^4\.16\.\d+$/.test(y.version)) continue;
    const newer = (p, q) => !q || Number(p.version.split('.')[2]) > Number(q.version.split('.')[2]);
    if (newer(y, to)) [from, to] = [x, y];
    else if (y === to && newer(x, from)) from = x;
  }
  if (!from || !to) throw new Error('the bundled stable-4.16 has no edge from 4.15 to 4.16');
  say(`the cluster will run ${from.version} and update to ${to.version}`);

  const payloads = join(dir, 'payloads');
  let registry;
  if (existsSync(DOCKER_REGISTRY) && process.env.DEMO_REGISTRY !== '0') {
    registry = await startRegistry();
    const repository = `http://${registry}/ocp/release`;
    say(`pushing both releases to a registry at ${registry} (cincy payload push --release …)`);
    for (const r of [from, to]) {
      r.payload = cincy(
        'payload',
        'push',
        '--release',
        r.version,
        '--server',
        server,
        '--registry',
        repository,
        '--no-store',
      ).trim();
      process.stdout.write(`${r.payload}\n`);
    }
    // The bundled channels, risks and other releases; these two come from the registry now.
    const tree = join(dir, 'graph-data');
    cpSync(GRAPH_DATA, tree, { recursive: true });
    for (const r of [from, to]) rmSync(join(tree, 'releases', 'amd64', `${r.version}.json`));
    say(`serving the graph again: cincy serve --releases ${repository} with the bundled channels and risks`);
    children.splice(first, 1)[0].kill('SIGTERM');
    server = await serve('cincy-registry.db', '--graph-data', tree, '--releases', repository);
    // It listens before its first scrape; ready once the registry's releases are in the graph.
    while ((await fetch(`${server}/readyz`)).status !== 200) await sleep(100);
  } else {
    const why = existsSync(DOCKER_REGISTRY) ? 'DEMO_REGISTRY=0' : `${DOCKER_REGISTRY} not found`;
    say(`${why}: no registry; making the release payloads in the local payload store instead`);
    for (const r of [from, to])
      process.stdout.write(cincy('payload', 'create', '--release', r.version, '--server', server, '--store', payloads));
  }

  say(`signing ${to.version} and adding the signature through the admin API`);
  const signature = join(dir, 'signature');
  cincy('sign', '--key', join(keys, 'demo.private.jwk.json'), '--payload', to.payload, '--out', signature);
  const token = cincy(
    'token',
    'create',
    '--admin-jwt-secret-file',
    secret,
    '--scope',
    'releases:write',
    '--subject',
    'demo',
  ).trim();
  const added = await fetch(`${server}/api/v1/releases/amd64/${to.version}/signatures`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/jose' },
    body: readFileSync(signature),
  });
  if (added.status !== 201 && added.status !== 200)
    throw new Error(`adding the signature: HTTP ${added.status} ${await added.text()}`);

  say('starting the mock cluster and the agent');
  const kubeconfig = join(dir, 'kubeconfig');
  await start(
    'cincy mock-cluster',
    [
      'mock-cluster',
      '--port',
      '0',
      '--state',
      join(dir, 'cluster.json'),
      '--kubeconfig-out',
      kubeconfig,
      '--version',
      from.version,
      '--image',
      from.payload,
      '--channel',
      'stable-4.16',
      '--upstream',
      `${server}/api/upgrades_info/v1/graph`,
      '--time-scale',
      String(SCALE),
      '--payload-store',
      payloads,
      ...(registry ? ['--registry-plain-http', registry] : []),
      ...(WORKLOAD_LOCKS ? ['--workload-locks', 'openstack,ceph'] : []),
    ],
    /listening at/,
  );
  await start(
    'cincy agent',
    [
      'agent',
      '--kubeconfig',
      kubeconfig,
      '--interval',
      '2',
      '--payload-store',
      payloads,
      '--trust-keys',
      trust,
      '--signature-store',
      `${server}/signatures`,
      '--log-level',
      'info',
      '--follow-mock-clock',
    ],
    /"msg":"poll"/,
  );

  const k = ['--kubeconfig', kubeconfig];
  const cv = () => JSON.parse(cincy('adm', 'upgrade', '-o', 'json', ...k));
  while (!(cv().status.availableUpdates ?? []).some((u) => u.version === to.version)) await sleep(500);
  say('cincy adm upgrade');
  process.stdout.write(cincy('adm', 'upgrade', ...k));
  say(`cincy adm upgrade --to ${to.version}`);
  process.stdout.write(cincy('adm', 'upgrade', '--to', to.version, ...k));

  const started = Date.now();
  let last = '';
  const pulled = join(payloads, 'sha256', to.payload.split('sha256:')[1]);
  let saidPulled = !registry;
  let completedAt;
  let phase = '';
  for (let tick = 0; ; tick++) {
    const status = cv().status;
    const progressing = status.conditions?.find((c) => c.type === 'Progressing');
    const failing = status.conditions?.find((c) => c.type === 'Failing' && c.status === 'True');
    const line = failing ? `Failing: ${failing.reason}: ${failing.message}` : (progressing?.message ?? '');
    if (line !== last)
      process.stdout.write(`  [${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}\n`);
    last = line;
    if (!saidPulled && existsSync(pulled)) {
      saidPulled = true;
      say(`the payload Job pulled the release image from the registry into ${payloads}`);
    }
    const pools = JSON.parse(cincy('get', 'mcp', '-o', 'json', ...k)).items;
    const rolling = pools.some(
      (p) =>
        p.status.updatedMachineCount !== p.status.machineCount ||
        p.status.configuration?.name !== p.spec.configuration?.name,
    );
    if (!completedAt && status.history?.[0]?.version === to.version && status.history[0].state === 'Completed') {
      completedAt = Date.now();
      // With workload locks the update completes only after the last node and the end of the maintenance.
      say(
        rolling
          ? `the control plane runs ${to.version}; the nodes are still updating`
          : `the update to ${to.version} completed; every node was updated before it`,
      );
      process.stdout.write(cincy('get', 'clusterversion', ...k));
    }
    if (WORKLOAD_LOCKS) {
      const report = cincy('get', 'maintenance', ...k);
      const now = report.split('\n').slice(0, 3).join('\n');
      if (now !== phase) process.stdout.write(report);
      phase = now;
    } else if (rolling && tick % 3 === 0) process.stdout.write(cincy('get', 'mcp', ...k));
    if (
      completedAt &&
      pools.every(
        (p) =>
          p.status.updatedMachineCount === p.status.machineCount &&
          p.status.configuration?.name === p.spec.configuration?.name,
      )
    )
      break;
    if (Date.now() - started > 10 * 60_000) throw new Error('the update did not finish in 10 minutes');
    await sleep(1000);
  }
  say(`every node runs ${to.version} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  process.stdout.write(cincy('get', 'nodes', ...k));
  process.stdout.write(
    cincy('get', 'co', ...k)
      .split('\n')
      .slice(0, 6)
      .join('\n') + '\n  …\n',
  );
  if (WORKLOAD_LOCKS) {
    say('cincy get maintenance: the maintenance is over, every lock active again');
    process.stdout.write(cincy('get', 'maintenance', ...k));
  }
  say('cincy adm upgrade');
  process.stdout.write(cincy('adm', 'upgrade', ...k));
}

(process.argv.includes('--image-based')
  ? imageBasedDemo({ start, startRegistry, cincy, say, sleep, dir, scale: Number(process.env.DEMO_TIME_SCALE ?? 120) })
  : main()
)
  .then(async () => {
    await stopAndWait();
    process.exit(0);
  })
  .catch(async (err) => {
    process.stderr.write(`demo failed: ${err.message}\n`);
    await stopAndWait();
    process.exit(1);
  });
