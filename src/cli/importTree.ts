// `cincy import` and `cincy validate`: read a tree, list every problem, import it in one transaction; and
// scrape registry sources once into the store, as a one-shot job.
import { SingleBar, Presets } from 'cli-progress';
import { readGraphData } from '../sources/graphData.js';
import { formatProblem, type Problem } from '../validation/problems.js';
import { redactedLocation } from '../store/postgresConnection.js';
import { ImportRejected, Store, type Counts } from '../store/store.js';
import { type TrustStore, verifyTreeSignatures } from '../signatures/verify.js';
import { trustKeys } from './trustKeys.js';
import { systemClock } from '../clock.js';
import { registryClients, registrySources } from '../app/refresh/sources.js';
import { sourceSettings, type SourceFlags } from './registryFlags.js';
import { ReleaseScrapeSource } from '../app/refresh/releaseScrape.js';
import { recallAll } from '../app/refresh/loop.js';
import { DEMO_SOURCE, demoConflict, isBundled } from '../app/demoStore.js';
import { demoConflictMessage } from './demoConflict.js';
import { escapeLine } from './terminalText.js';

function progressBar(label: string, unit: string): { update: (done: number, total: number) => void; stop: () => void } {
  if (!process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const bar = new SingleBar(
    { format: `${label} [{bar}] {value}/{total} ${unit}`, stream: process.stderr, hideCursor: true },
    Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total) {
      if (!started) bar.start(total, 0);
      started = true;
      bar.update(done);
    },
    stop: () => {
      if (started) bar.stop();
      started = false;
    },
  };
}

function printProblems(errors: Problem[], warnings: Problem[]): void {
  for (const w of warnings) process.stderr.write(`warning: ${escapeLine(formatProblem(w))}\n`);
  for (const e of errors) process.stderr.write(`${escapeLine(formatProblem(e))}\n`);
}

export async function validateCommand(dir: string): Promise<number> {
  const read = await readGraphData(dir);
  printProblems(read.errors, read.warnings);
  if (!read.tree) {
    process.stderr.write(`${dir}: ${read.errors.length} problem(s)\n`);
    return 1;
  }
  const t = read.tree;
  process.stdout.write(
    `${dir}: valid (schema ${t.schemaVersion}): ${t.releases.length} releases, ${t.channels.length} channels, ` +
      `${t.blockedEdges.length} blocked edges, ${read.warnings.length} warning(s)\n`,
  );
  // The real cincinnati-graph-data holds no release records: the service reads them from the release
  // images. Such a tree is valid, and serves empty graphs until releases come from somewhere.
  if (t.releases.length === 0)
    process.stdout.write(
      `${dir}: note: no release records (releases/<arch>/<version>.json), so every channel's graph will be empty ` +
        'until releases are fed: from a registry (serve --releases <registry/repo>), as release files in the tree, ' +
        'or over the admin API (cincy release add)\n',
    );
  return 0;
}

const counts = (c: Counts): string =>
  `${c.added} added, ${c.changed} changed, ${c.unchanged} unchanged, ${c.removed} removed`;

export interface ImportOptions extends SourceFlags {
  graphData?: string;
  db: string;
  prune?: boolean;
  trustKeys?: string;
}

export async function importCommand(opts: ImportOptions): Promise<number> {
  if (!opts.graphData && !opts.releases && !opts.graphDataImage)
    throw new Error('nothing to import: give --graph-data, --releases or --graph-data-image');
  const trust = await trustKeys(opts.trustKeys);
  const settings = sourceSettings(opts);
  const clients = registryClients(settings);
  const store = await Store.open(opts.db);
  try {
    // The bundled tree is the demo however it is named: it goes only into a store of its own.
    const demo = opts.graphData !== undefined && isBundled(opts.graphData);
    const conflict = await demoConflict(store, redactedLocation(opts.db), {
      demo,
      realSource: !demo || opts.releases !== undefined || opts.graphDataImage !== undefined,
    });
    if (conflict) {
      process.stderr.write(`cincy: ${demoConflictMessage(conflict)}\n`);
      return 1;
    }
    if (opts.graphData && !(await importDirectory(store, opts.graphData, opts, trust))) return 1;
    const bar = progressBar('scraping', 'tags');
    // Warnings as the tree's are printed; a failure is printed once, below, with its problems.
    const log = {
      info: () => {},
      warn: (obj: object) => process.stderr.write(`warning: ${escapeLine(Object.values(obj).join(' '))}\n`),
      error: () => {},
    };
    // A one-shot job asks where every known tag points (HEADs), so a moved tag is always seen.
    const context = { store, trust, clock: systemClock, log, onProgress: bar.update, checkKnownTagsEvery: 1 };
    const sources = registrySources(clients, settings, context);
    await recallAll(sources);
    let failed = 0;
    for (const source of sources) {
      await source.refresh();
      bar.stop();
      const st = source.status;
      if (st.lastFailure) {
        failed += 1;
        for (const p of st.lastFailure.problems) process.stderr.write(`${escapeLine(p)}\n`);
        process.stderr.write(`import rejected: ${escapeLine(st.lastFailure.message)}; the store keeps what it had\n`);
        continue;
      }
      if (source instanceof ReleaseScrapeSource && source.last) {
        const r = source.last;
        const s = r.skipped;
        process.stdout.write(
          `scraped ${st.name} into ${redactedLocation(opts.db)} in ${st.lastDurationSeconds?.toFixed(1)} s: ${r.releases.length} releases from ${r.tags} tags ` +
            `(${r.manifestsRead} manifests read, the rest remembered); skipped: ${s.notRelease} not release images, ${s.signature} signatures, ` +
            `${s.invalid} invalid, ${s.member} members of multi-arch releases, ${s.filtered} filtered out, ${s.unknownArch} of unknown architectures\n`,
        );
      } else process.stdout.write(`imported ${st.name} (${st.digest}) into ${redactedLocation(opts.db)}\n`);
    }
    return failed ? 1 : 0;
  } finally {
    await store.close();
    await clients.close();
  }
}

/** Imports a graph-data directory or .tar.gz; false when it was rejected (the store is unchanged). */
async function importDirectory(
  store: Store,
  graphData: string,
  opts: ImportOptions,
  trust: TrustStore,
): Promise<boolean> {
  const bar = progressBar('reading', 'files');
  const read = await readGraphData(graphData, bar.update);
  bar.stop();
  printProblems(read.errors, read.warnings);
  if (!read.tree) {
    process.stderr.write(`import rejected: ${read.errors.length} problem(s) in ${graphData}; the store is unchanged\n`);
    return false;
  }
  const signatures = await verifyTreeSignatures(read.tree.signatures, trust);
  printProblems([], signatures.warnings);
  try {
    const s = await store.importTree(read.tree, {
      source: isBundled(graphData) ? DEMO_SOURCE : graphData,
      prune: opts.prune,
      force: true,
      signatures: signatures.verified,
      fingerprint: read.fingerprint,
    });
    const risks = read.tree.blockedEdges.filter((e) => e.risk).length;
    process.stdout.write(
      [
        `imported ${graphData} into ${redactedLocation(opts.db)} (content ${s.contentHash.slice(0, 12)})`,
        `  releases:      ${counts(s.releases)}`,
        `  channels:      ${counts(s.channels)}`,
        `  blocked edges: ${counts(s.blockedEdges)} (${risks} risks, ${read.tree.blockedEdges.length - risks} hard blocks in the tree)`,
        `  raw metadata:  ${counts(s.rawMetadata)}`,
        `  signatures:    ${s.signatures.added} added, ${s.signatures.unchanged} already stored, ${signatures.warnings.length} refused`,
        '',
      ].join('\n'),
    );
    return true;
  } catch (err) {
    if (!(err instanceof ImportRejected)) throw err;
    printProblems(err.problems, []);
    process.stderr.write(`import rejected: ${err.problems.length} problem(s); the store is unchanged\n`);
    return false;
  }
}
