#!/usr/bin/env node
// `npm run reliability`: the reliability findings (of the project's issue 13) and the hostile-registry
// findings (issue 30) as tests, named "reliability finding N" and "hostile finding N", then what only a
// running server shows: a soak under wrk, kill -9 during admin write streams, body floods while /graph
// is measured, slow clients, and a hostile registry playing each of its attacks against `cincy serve`
// (a second table: attack, bound hit, time, peak RSS, what /readyz said), and a hostile fleet polling
// with junk (a third: attack, time, /graph's p99 meanwhile). Loopback only, bounded in
// time. Prints the tables, writes them to reliability-results/latest.md, and exits 1 when anything did
// not hold.
//
//   node scripts/reliability.mjs [--soak-seconds 120] [--rounds 5] [--flood-seconds 5] [--skip-tests]
//                                [--findings-from REPORT.json]
// --findings-from reads the finding tests' outcomes from the vitest JSON report of a run that had them
// (CI's `npm test`) instead of running them a second time.
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasCommand, installCleanupHandlers, removeOnExit } from './bench/procs.mjs';
import { runFindings } from './reliability/findings.mjs';
import { flood } from './reliability/flood.mjs';
import { hostileRegistry } from './reliability/hostile.mjs';
import { hostileFleet } from './reliability/hostileFleet.mjs';
import { killDuringWrites } from './reliability/killWrites.mjs';
import { slowClients } from './reliability/slowClients.mjs';
import { soak } from './reliability/soak.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'bin', 'cincy.js');
const CONFORMANCE = resolve(ROOT, process.env.CINCY_CONFORMANCE_DIR ?? '../shared/conformance');
const REAL_SET = join(CONFORMANCE, 'real-2024-08-09', 'graph-data');
const log = (msg) => console.log(`reliability: ${msg}`);

function option(name, fallback) {
  const i = process.argv.indexOf(name);
  if (i < 0) return fallback;
  const v = Number(process.argv[i + 1]);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name}: '${process.argv[i + 1]}' is not a positive integer`);
  return v;
}

async function main() {
  installCleanupHandlers();
  const soakSeconds = option('--soak-seconds', 120);
  const rounds = option('--rounds', 5);
  const floodSeconds = option('--flood-seconds', 5);
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  if (!existsSync(REAL_SET)) throw new Error(`${REAL_SET} not found (set CINCY_CONFORMANCE_DIR)`);
  if (!hasCommand('wrk')) throw new Error('wrk is missing: apt-get install wrk');
  const workDir = removeOnExit(mkdtempSync(join(tmpdir(), 'cincy-reliability-')));
  const context = { cli: CLI, graphData: REAL_SET, workDir, log };
  const rows = [];

  const fromAt = process.argv.indexOf('--findings-from');
  const report = fromAt < 0 ? undefined : resolve(process.argv[fromAt + 1] ?? '');
  if (report && !existsSync(report)) throw new Error(`--findings-from: ${report} does not exist`);
  if (!process.argv.includes('--skip-tests'))
    for (const [label, n, f] of runFindings({ root: ROOT, workDir, log, report }))
      rows.push({
        scenario: `${label} finding ${n} (tests named "${label} finding ${n}")`,
        tried: `${f.tried} tests`,
        held: f.tried > 0 && f.held === f.tried,
        detail: f.failed.length ? `failed: ${f.failed.join('; ')}` : `${f.held} passed`,
      });
  const attempt = async (name, scenario) => {
    try {
      return await scenario();
    } catch (err) {
      return { scenario: name, tried: '—', held: false, detail: `could not run: ${err.message.split('\n')[0]}` };
    }
  };
  rows.push(await attempt('soak', () => soak({ ...context, seconds: soakSeconds })));
  // The hostile registry's attacks mostly wait out deadlines, and kill -9 checks what was written, not how fast:
  // the two run side by side. The soak, the flood and the slow clients, which measure time, each run alone.
  const hostile = hostileRegistry({ root: ROOT, cli: CLI, workDir, log }).catch((err) => [
    { attack: 'hostile registry', bound: '—', held: false, seconds: '—', rss: '—', said: err.message.split('\n')[0] },
  ]);
  rows.push(await attempt('kill -9', () => killDuringWrites({ ...context, rounds })));
  const hostileRows = await hostile;
  rows.push(await attempt('flood', () => flood({ ...context, seconds: floodSeconds })));
  rows.push(await attempt('slow clients', () => slowClients(context)));
  const fleet = await attempt('hostile fleet', () => hostileFleet(context));
  rows.push(fleet);

  rows.push({
    scenario: 'a hostile registry against cincy serve (table below)',
    tried: `${hostileRows.length} attacks`,
    held: hostileRows.every((r) => r.held),
    detail: `${hostileRows.filter((r) => r.held).length} held`,
  });

  const esc = (s) => String(s).replace(/\|/g, '\\|');
  const table = [
    '| what was tried | how many | held | detail |',
    '| --- | --- | --- | --- |',
    ...rows.map((r) => `| ${esc(r.scenario)} | ${esc(r.tried)} | ${r.held ? 'yes' : '**no**'} | ${esc(r.detail)} |`),
  ].join('\n');
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const hostileTable = [
    '| attack | bound hit | time to /readyz saying so (s) | peak RSS | held | what /readyz said |',
    '| --- | --- | --- | --- | --- | --- |',
    ...hostileRows.map(
      (r) =>
        `| ${esc(r.attack)} | ${esc(r.bound)} | ${r.seconds} | ${r.rss} | ${r.held ? 'yes' : '**no**'} | ${esc(r.said)} |`,
    ),
  ].join('\n');
  const fleetTable = [
    '| attack | time (s) | /graph p99 during (ms) | clusters stored | groups | longest name | changes kept (counted as updates) | reports kept (updates, longest summary) | database (MB) | result |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...(fleet.attacks ?? []).map(
      (a) =>
        `| ${esc(a.name)} | ${a.seconds.toFixed(1)} | ${a.p99.toFixed(2)} | ${a.clusters} | ${a.groups} | ` +
        `${a.longest} | ${a.updates} (${a.counted}) | ${a.reports} (${a.outcomes}, ${a.summary} B) | ${a.mb.toFixed(1)} | ` +
        `${a.held === false ? '**no**: ' : ''}${esc(a.result ?? 'within the bounds above')} |`,
    ),
  ].join('\n');
  const text =
    `# cincy reliability — ${new Date().toISOString()}\n\nload average ${load} at the end\n\n${table}\n\n` +
    `## A hostile registry\n\n${hostileTable}\n\n## A hostile fleet\n\n${fleetTable}\n`;
  mkdirSync(join(ROOT, 'reliability-results'), { recursive: true });
  writeFileSync(join(ROOT, 'reliability-results', 'latest.md'), text);
  console.log(`\n${text}`);
  return rows.every((r) => r.held) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`reliability: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
