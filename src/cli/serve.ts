// `cincy serve`: open the store, import the graph-data tree if its content is new, build, listen.
import { readGraphData, formatProblem } from '../sources/graphData.js';
import { resolveServeConfig, type ServeConfig } from '../config.js';
import { buildApp } from '../server/app.js';
import { GraphService } from '../server/graphService.js';
import { ImportRejected, Store } from '../store/store.js';

export async function serve(flags: Partial<Record<keyof ServeConfig, string>>): Promise<number> {
  const config = resolveServeConfig(flags);
  const store = Store.open(config.db);
  const service = new GraphService(store);
  const app = await buildApp({
    service,
    cacheMaxAge: config.cacheMaxAge,
    logger: { level: config.logLevel, redact: ['req.headers.authorization'] },
  });
  const log = app.log;

  const problems = await importAtStart(store, config.graphData, log);
  if (problems.length) {
    if (!store.hasContent()) {
      process.stderr.write(`cincy: cannot serve: ${config.graphData} is invalid and the store ${config.db} has nothing to serve:\n`);
      for (const p of problems) process.stderr.write(`  ${p}\n`);
      store.close();
      return 1;
    }
    log.error({ problems }, `graph-data ${config.graphData} rejected; serving what the store has`);
    service.lastImportFailure = { at: new Date().toISOString(), message: `${config.graphData}: ${problems.length} problem(s)`, problems: problems.slice(0, 100) };
  }
  if (!service.rebuild()) {
    process.stderr.write(`cincy: graph build failed: ${service.lastBuildFailure?.message}\n`);
    store.close();
    return 1;
  }
  const snap = service.current!;
  log.info({ releases: snap.graph.nodes.length, channels: snap.channels.size, buildSeconds: snap.buildSeconds }, 'graph built');

  const stop = async (signal: string): Promise<void> => {
    log.info({ signal }, 'shutting down');
    await app.close();
    store.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  await app.listen({ host: config.host, port: config.port });
  return new Promise<number>(() => {}); // runs until a signal
}

async function importAtStart(store: Store, graphData: string, log: { info: (o: object, m: string) => void; warn: (o: object, m: string) => void }): Promise<string[]> {
  const read = await readGraphData(graphData);
  for (const w of read.warnings) log.warn({ warning: formatProblem(w) }, 'graph-data warning');
  if (!read.tree) return read.errors.map(formatProblem);
  try {
    const summary = store.importTree(read.tree, { source: graphData });
    if (summary.skipped) log.info({ contentHash: summary.contentHash }, 'graph-data unchanged since the last import');
    else log.info({ summary }, 'graph-data imported');
    return [];
  } catch (err) {
    if (err instanceof ImportRejected) return err.problems.map(formatProblem);
    throw err;
  }
}
