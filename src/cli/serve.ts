// `cincy serve`: listen, start the service (connect, import if new, build), then serve until a signal.
// The graph-data tree is read in a worker thread from the very start, while this thread checks the
// settings and loads and prepares the rest.
import type { ServeFlags } from '../config.js';
import { graphDataPath } from '../settings.js';
import type { ReadResult } from '../sources/graphData.js';
import { readGraphDataInWorker } from '../sources/readInWorker.js';
import type { Server as HttpsServer } from 'node:https';
import type { TlsMaterial } from '../server/tls.js';
import type { LogFormat } from './logFormat.js';

export async function serve(flags: ServeFlags): Promise<number> {
  // The tree's path is known before the settings are checked (which loads a schema library).
  const path = graphDataPath(flags, process.env);
  const reading = new AbortController();
  const treeRead = path === undefined ? undefined : readGraphDataInWorker(path, reading.signal);
  try {
    return await start(flags, path, treeRead);
  } finally {
    // Only a start that ended (a refused setting, a failure) gets here: the read, if still going, stops.
    reading.abort();
  }
}

/** Everything after the read began; serves until a signal. */
async function start(
  flags: ServeFlags,
  path: string | undefined,
  treeRead: Promise<ReadResult> | undefined,
): Promise<number> {
  const { resolveServeConfig, sizeInBytes, checkDbFolder } = await import('../config.js');
  const config = resolveServeConfig(flags);
  const folderProblem = checkDbFolder(config.db, flags, process.env);
  if (folderProblem) {
    process.stderr.write(`cincy: cannot serve: ${folderProblem}\n`);
    return 1;
  }
  const [
    { default: pino },
    { systemClock },
    { parseDuration, parseSingleUnitDuration },
    { startAutoPromotion },
    { buildApp },
    { prepareService },
    { startSourceRefresh },
    { TrustStore },
    { escapeLine },
    { loadTls, TlsError, watchTls },
    { redactedLocation },
    { logDestination },
  ] = await Promise.all([
    import('pino'),
    import('../clock.js'),
    import('../duration.js'),
    import('../app/autoPromotion.js'),
    import('../server/app.js'),
    import('../app/start.js'),
    import('../app/refresh/loop.js'),
    import('../signatures/verify.js'),
    import('./terminalText.js'),
    import('../server/tls.js'),
    import('../store/postgresConnection.js'),
    import('./logFormat.js'),
  ]);
  // Tokens never reach the log: requests are logged without headers, and this is a second guard.
  const logger = pino(
    { level: config.logLevel, redact: ['req.headers.authorization', 'headers.authorization'] },
    logDestination(config.logFormat as LogFormat),
  );
  const trust = config.trustKeys ? await TrustStore.load(config.trustKeys) : TrustStore.empty();
  if (config.requireSignatures && trust.size === 0)
    logger.warn({}, '--require-signatures without --trust-keys: no release can be verified, the graph will be empty');
  // One clock for the store, the graph, the admin services, token checks and auto-promotion.
  const clock = systemClock;
  const prepared = prepareService({
    graphData: config.graphData,
    // The same path, as resolving the settings gives it (graphDataPath is how it does).
    ...(treeRead && config.graphData === path && { treeRead }),
    registry: config,
    // Listening (and /livez) comes before a long first scrape; /readyz answers 503 until it is done.
    deferSources: true,
    db: config.db,
    demo: config.demo,
    dbPoolSize: config.dbPoolSize,
    ...(config.dbMaxSize && { dbMaxBytes: sizeInBytes(config.dbMaxSize) }),
    log: logger,
    trust,
    requireSignatures: config.requireSignatures,
    clock,
    fleet: {
      record: !config.noFleet,
      hashIds: config.fleetHashIds,
      maxClusters: config.fleetMaxClusters,
      retentionMs: parseSingleUnitDuration(config.fleetRetention)!,
      flushIntervalMs: parseSingleUnitDuration(config.fleetFlushInterval)!,
    },
    historyRetentionMs: parseSingleUnitDuration(config.historyRetention)!,
    webhooks: {
      timeoutMs: parseSingleUnitDuration(config.webhookTimeout)!,
      concurrency: config.webhookConcurrency,
      allowLoopback: config.webhookAllowLoopback,
    },
  });
  const cannotServe = (problems: string[]): number => {
    process.stderr.write(`cincy: cannot serve: ${problems.map(escapeLine).join('\n  ')}\n`);
    return 1;
  };
  if (!prepared.ok) return cannotServe(prepared.problems);
  if (config.dbMaxSize && /^postgres(ql)?:/.test(config.db))
    return cannotServe(['--db-max-size bounds a SQLite store; PostgreSQL is bounded by its own disk and quotas']);
  if (Boolean(config.tlsCert) !== Boolean(config.tlsKey))
    return cannotServe(['--tls-cert and --tls-key go together: give both, or neither for plain HTTP']);
  let tls: { material: TlsMaterial } | undefined;
  if (config.tlsCert && config.tlsKey) {
    try {
      tls = { material: loadTls({ cert: config.tlsCert, key: config.tlsKey }) };
    } catch (err) {
      if (err instanceof TlsError) return cannotServe([err.message]);
      throw err;
    }
  }
  const { service, admin, sources, leadership, fleet, webhooks } = prepared;
  const app = await buildApp({
    tls,
    service,
    admin,
    cacheMaxAge: config.cacheMaxAge,
    limits: config,
    accessLog: config.accessLog,
    logger,
    clock,
    fleet,
    webhooks,
    auth: {
      secretFile: config.adminJwtSecretFile,
      jwks: config.adminJwks,
      issuer: config.adminIssuer,
      audience: config.adminAudience,
      rateLimit: config.adminRateLimit,
    },
  });
  const jobs: Array<{ stop(): void }> = [];
  const stop = async (signal: string): Promise<void> => {
    logger.info({ signal }, 'shutting down');
    for (const job of jobs) job.stop();
    await app.close();
    await prepared.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  // Listening first: /livez answers, and /readyz says why nothing is served while the store is
  // reached, imported and built.
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') throw err;
    await app.close();
    await prepared.close();
    const where = `${config.host}:${config.port}`;
    return cannotServe([
      code === 'EADDRINUSE'
        ? `${where} is in use by another process: stop it, or give another --port (0 picks a free one)`
        : code === 'EACCES'
          ? `${where}: not allowed to listen on port ${config.port} (below 1024 needs privileges): give another --port`
          : `${where}: ${config.host} is not an address of this machine: give another --host`,
    ]);
  }
  if (tls && config.tlsCert && config.tlsKey)
    jobs.push({
      stop: watchTls(app.server as unknown as HttpsServer, { cert: config.tlsCert, key: config.tlsKey }, tls, logger),
    });
  const started = await prepared.start();
  if (!started.ok) {
    await app.close();
    await prepared.close();
    return cannotServe(started.problems);
  }
  if (service.demo)
    logger.warn(
      { db: redactedLocation(config.db) },
      'serving the bundled DEMO data (invented releases, payloads on quay.example.com), not real data; ' +
        'for real data, serve --graph-data DIR, --releases REPOSITORY or --graph-data-image IMAGE on a store of its own (--db)',
    );
  else if (!config.graphData && !sources.length && !(await service.store.read((tx) => tx.hasContent())))
    logger.warn(
      { db: redactedLocation(config.db) },
      'the store is empty and no source is given: nothing is served until --graph-data DIR, --releases REPOSITORY, ' +
        '--graph-data-image IMAGE, `cincy import` or the admin API brings releases (--demo serves the bundled demo)',
    );
  void started.firstRead.then(() => {
    if (sources.length)
      jobs.push(startSourceRefresh(sources, service, parseDuration(config.scrapeInterval)!, clock, leadership));
  });
  if (config.autoPromote)
    jobs.push(startAutoPromotion(admin.feeders, config.autoPromoteInterval * 1000, logger, clock, leadership));
  return new Promise<number>(() => {}); // serves until a signal
}
