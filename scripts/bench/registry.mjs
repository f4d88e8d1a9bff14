// The registry part of the bench: a real distribution registry (Debian's docker-registry) holding 1,000
// release images, scraped by `cincy serve --releases`. It measures the cold scrape to a served graph, a
// rescan with no new tag (and the blobs it fetched: none is the target), a restart on the same store, and
// the server's peak RSS. Images are pushed with cincy's own image writer (dist/registry/imageWriter.js).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { freePort, get, waitReady } from './http.mjs';
import { hasCommand, peakRssMb, start, stop } from './procs.mjs';
import { atMost } from './report.mjs';

export const REGISTRY_TARGETS = {
  cold: atMost(10, 's'),
  rescan: atMost(1, 's'),
  rescanBlobs: atMost(0),
  rss: atMost(200, 'MB'),
};
const M = {
  push: 'push 1,000 release images (setup, cincy image writer)',
  cold: 'cold scrape of 1,000 images → /readyz 200',
  rescan: 'rescan, no new tag (scrape time from /readyz)',
  rescanBlobs: 'blobs fetched by the rescan',
  restart: 'restart on the same store → /readyz 200',
  restartBlobs: 'blobs fetched after the restart',
  rss: 'peak RSS of the server during the cold scrape (VmHWM)',
};
const INPUT = 'registry, 1,000 images';
const COUNT = 1000;

/** 4.10.0 … 4.19.99: each release lists the five before it in its minor and the last three of the minor below. */
function versions() {
  const out = [];
  for (let minor = 10; minor < 20; minor++)
    for (let z = 0; z < COUNT / 10; z++) {
      const previous = [];
      for (let p = Math.max(0, z - 5); p < z; p++) previous.push(`4.${minor}.${p}`);
      if (minor > 10) for (let p = COUNT / 10 - 3; p < COUNT / 10; p++) previous.push(`4.${minor - 1}.${p}`);
      out.push({ version: `4.${minor}.${z}`, previous });
    }
  return out;
}

function writeGraphData(dir, all) {
  mkdirSync(join(dir, 'channels'), { recursive: true });
  writeFileSync(join(dir, 'version'), '1.1.0\n');
  for (let minor = 10; minor < 20; minor++) {
    const names = all
      .map((r) => r.version)
      .filter((v) => v.startsWith(`4.${minor}.`) || v.startsWith(`4.${minor - 1}.`));
    writeFileSync(
      join(dir, 'channels', `stable-4.${minor}.yaml`),
      `name: stable-4.${minor}\nversions:\n${names.map((v) => `- ${v}\n`).join('')}`,
    );
  }
}

async function pushImages(root, registryUrl, all) {
  const { RegistryClient } = await import(pathToFileURL(join(root, 'dist/registry/client.js')).href);
  const { layerOf, pushImage } = await import(pathToFileURL(join(root, 'dist/registry/imageWriter.js')).href);
  const { parseRepository } = await import(pathToFileURL(join(root, 'dist/registry/reference.js')).href);
  const client = new RegistryClient(parseRepository(`${registryUrl}/ocp/release`, 'bench'));
  // A shared 2 MiB base layer below each release layer, as release images sit on a base image.
  const base = await layerOf(new Map([['usr/share/base.bin', Buffer.alloc(2 * 1024 * 1024, 1)]]));
  let next = 0;
  const worker = async () => {
    while (next < all.length) {
      const r = all[next++];
      const manifests = new Map([
        [
          'release-manifests/release-metadata',
          JSON.stringify({ kind: 'cincinnati-metadata-v0', version: r.version, previous: r.previous, metadata: {} }),
        ],
        ['release-manifests/image-references', JSON.stringify({ kind: 'ImageStream', metadata: { name: r.version } })],
        ['release-manifests/0000_00_cluster-version-operator_03_deployment.yaml', `# ${r.version}\n`.repeat(200)],
      ]);
      await pushImage(client, { layers: [base, await layerOf(manifests)], arch: 'amd64', tag: `${r.version}-x86_64` });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  await client.close();
}

const blobGets = (logFile) =>
  readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((l) => /"GET \/v2\/ocp\/release\/blobs\//.test(l)).length;

async function readyz(port) {
  return JSON.parse((await get(port, '/readyz')).body);
}

export async function benchRegistry(report, { root, cli, workDir, log }) {
  if (!hasCommand('docker-registry')) {
    report.notRun(Object.values(M), INPUT, 'docker-registry is not installed (apt-get install docker-registry)');
    return;
  }
  const dir = join(workDir, 'registry');
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const logFile = join(dir, 'access.log');
  writeFileSync(
    join(dir, 'config.yml'),
    `version: 0.1\nlog:\n  level: warn\n  accesslog:\n    disabled: false\nstorage:\n  filesystem:\n    rootdirectory: ${dir}/storage\nhttp:\n  addr: 127.0.0.1:${port}\n`,
  );
  const registry = start('docker-registry', 'sh', [
    '-c',
    `exec docker-registry serve ${dir}/config.yml > ${logFile} 2>&1`,
  ]);
  const servers = [];
  try {
    for (let i = 0; i < 100; i++) {
      if ((await get(port, '/v2/').catch(() => ({ status: 0 }))).status === 200) break;
      if (registry.exited) throw new Error(`docker-registry exited: ${readFileSync(logFile, 'utf8')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const url = `http://127.0.0.1:${port}`;
    const all = versions();
    const graphData = join(dir, 'graph-data');
    writeGraphData(graphData, all);
    log(`[registry] pushing ${COUNT} release images to ${url}/ocp/release`);
    let t0 = performance.now();
    await pushImages(root, url, all);
    report.add(M.push, INPUT, (performance.now() - t0) / 1000, { unit: 's', digits: 1 });

    const db = join(dir, 'cincy.db');
    const serve = async (label) => {
      const p = await freePort();
      const args = [cli, 'serve', '--db', db, '--port', String(p), '--log-level', 'warn', '--graph-data', graphData];
      args.push('--releases', `${url}/ocp/release`, '--scrape-interval', '5s');
      const t = performance.now();
      const proc = start(`cincy serve (${label})`, process.execPath, args);
      servers.push(proc);
      const ready = await waitReady(proc, p, t);
      return { proc, port: p, seconds: ready.ms / 1000 };
    };
    const before = blobGets(logFile);
    const cold = await serve('cold');
    const coldReady = await readyz(cold.port);
    const coldBlobs = blobGets(logFile) - before;
    log(
      `[registry] cold: ${cold.seconds.toFixed(2)} s to ready, ${coldReady.graph?.releases} releases, ${coldBlobs} blob fetches`,
    );
    report.add(M.cold, INPUT, cold.seconds, { unit: 's', digits: 2, target: REGISTRY_TARGETS.cold });
    report.add(M.rss, INPUT, peakRssMb(cold.proc.pid), { unit: 'MB', digits: 0, target: REGISTRY_TARGETS.rss });

    // The rescan the server makes by itself 5 s later.
    const blobsBeforeRescan = blobGets(logFile);
    let source;
    for (let i = 0; i < 200; i++) {
      source = (await readyz(cold.port)).sources?.[0];
      if (source?.reads >= 2 && source.lastSuccessAt && source.lastAttemptAt <= source.lastSuccessAt) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    report.add(M.rescan, INPUT, source?.lastDurationSeconds ?? NaN, {
      unit: 's',
      digits: 2,
      target: REGISTRY_TARGETS.rescan,
    });
    report.add(M.rescanBlobs, INPUT, blobGets(logFile) - blobsBeforeRescan, {
      digits: 0,
      target: REGISTRY_TARGETS.rescanBlobs,
    });
    await stop(cold.proc);

    t0 = blobGets(logFile);
    const again = await serve('restart');
    report.add(M.restart, INPUT, again.seconds, { unit: 's', digits: 2 });
    report.add(M.restartBlobs, INPUT, blobGets(logFile) - t0, { digits: 0, target: REGISTRY_TARGETS.rescanBlobs });
    await stop(again.proc);
  } catch (err) {
    report.fail('[registry] bench', err);
  } finally {
    for (const s of servers) await stop(s);
    await stop(registry);
  }
}
