// `cincy import` and `cincy validate`: read a tree, list every problem, import it in one transaction.
import { SingleBar, Presets } from 'cli-progress';
import { readGraphData } from '../sources/graphData.js';
import { formatProblem, type Problem } from '../validation/problems.js';
import { ImportRejected, Store, type Counts } from '../store/store.js';
import { TrustStore, verifyTreeSignatures } from '../signatures/verify.js';

function progressBar(label: string): { update: (done: number, total: number) => void; stop: () => void } {
  if (!process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const bar = new SingleBar(
    { format: `${label} [{bar}] {value}/{total} files`, stream: process.stderr, hideCursor: true },
    Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total) {
      if (!started) bar.start(total, 0);
      started = true;
      bar.update(done);
    },
    stop: () => started && bar.stop(),
  };
}

function printProblems(errors: Problem[], warnings: Problem[]): void {
  for (const w of warnings) process.stderr.write(`warning: ${formatProblem(w)}\n`);
  for (const e of errors) process.stderr.write(`${formatProblem(e)}\n`);
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
  return 0;
}

const counts = (c: Counts): string =>
  `${c.added} added, ${c.changed} changed, ${c.unchanged} unchanged, ${c.removed} removed`;

export async function importCommand(opts: {
  graphData: string;
  db: string;
  prune?: boolean;
  trustKeys?: string;
}): Promise<number> {
  const trust = opts.trustKeys ? await TrustStore.load(opts.trustKeys) : TrustStore.empty();
  const bar = progressBar('reading');
  const read = await readGraphData(opts.graphData, bar.update);
  bar.stop();
  printProblems(read.errors, read.warnings);
  if (!read.tree) {
    process.stderr.write(
      `import rejected: ${read.errors.length} problem(s) in ${opts.graphData}; the store is unchanged\n`,
    );
    return 1;
  }
  const signatures = await verifyTreeSignatures(read.tree.signatures, trust);
  printProblems([], signatures.warnings);
  const store = Store.open(opts.db);
  try {
    const s = store.importTree(read.tree, {
      source: opts.graphData,
      prune: opts.prune,
      force: true,
      signatures: signatures.verified,
    });
    const risks = read.tree.blockedEdges.filter((e) => e.risk).length;
    process.stdout.write(
      [
        `imported ${opts.graphData} into ${opts.db} (content ${s.contentHash.slice(0, 12)})`,
        `  releases:      ${counts(s.releases)}`,
        `  channels:      ${counts(s.channels)}`,
        `  blocked edges: ${counts(s.blockedEdges)} (${risks} risks, ${read.tree.blockedEdges.length - risks} hard blocks in the tree)`,
        `  raw metadata:  ${counts(s.rawMetadata)}`,
        `  signatures:    ${s.signatures.added} added, ${s.signatures.unchanged} already stored, ${signatures.warnings.length} refused`,
        '',
      ].join('\n'),
    );
    return 0;
  } catch (err) {
    if (!(err instanceof ImportRejected)) throw err;
    printProblems(err.problems, []);
    process.stderr.write(`import rejected: ${err.problems.length} problem(s); the store is unchanged\n`);
    return 1;
  } finally {
    store.close();
  }
}
