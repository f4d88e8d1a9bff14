// `cincy serve`: start the service (import if new, build), then listen until a signal. The graph-data
// tree is read in a worker thread from the very start, while this thread checks the settings and loads
// and prepares the rest.
import type { ServeFlags } from '../config.js';
import { graphDataPath } from '../settings.js';
import type { ReadResult } from '../sources/graphData.js';
import { readGraphDataInWorker } from '../sources/readInWorker.js';

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
  const config = (await import('../config.js')).resolveServeConfig(flags);
  const [
    { default: pino },
    { parseDuration, systemClock },
    { startAutoPromotion },
    { buildApp },
    { startService },
    { startSourceRefresh },
    { TrustStore },
    { escapeLine },
  ] = await Promise.all([
    import('pino'),
    import('../clock.js'),
    import('../app/autoPromotion.js'),
    import('../server/app.js'),
    import('../app/start.js'),
    import('../app/sources/refresh.js'),
    import('../signatures/verify.js'),
    import('./terminalText.js'),
  ]);
  // Tokens never reach the log: requests are logged without headers, and this is a second guard.
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization', 'headers.authorization'] });
  const trust = config.trustKeys ? await TrustStore.load(config.trustKeys) : TrustStore.empty();
  if (config.requireSignatures && trust.size === 0)
    logger.warn({}, '--require-signatures without --trust-keys: no release can be verified, the graph will be empty');
  // One clock for the store, the graph, the admin services, token checks and auto-promotion.
  const clock = systemClock;
  const started = await startService({
    graphData: config.graphData,
    // The same path, as resolving the settings gives it (graphDataPath is how it does).
    ...(treeRead && config.graphData === path && { treeRead }),
    registry: config,
    // Listening (and /livez) comes before a long first scrape; /readyz answers 503 until it is done.
    deferSources: true,
    db: config.db,
    log: logger,
    trust,
    requireSignatures: config.requireSignatures,
    clock,
  });
  if (!started.ok) {
    process.stderr.write(`cincy: cannot serve: ${started.problems.map(escapeLine).join('\n  ')}\n`);
    return 1;
  }
  const { store, service, admin, sources } = started;
  const app = await buildApp({
    service,
    admin,
    cacheMaxAge: config.cacheMaxAge,
    limits: config,
    accessLog: config.accessLog,
    logger,
    clock,
    auth: {
      secretFile: config.adminJwtSecretFile,
      jwks: config.adminJwks,
      issuer: config.adminIssuer,
      audience: config.adminAudience,
      rateLimit: config.adminRateLimit,
    },
  });
  let scrapes: { stop(): void } | undefined;
  void started.firstRead.then(() => {
    if (sources.length) scrapes = startSourceRefresh(sources, service, parseDuration(config.scrapeInterval)!, clock);
  });
  const scheduler = config.autoPromote
    ? startAutoPromotion(admin.feeders, config.autoPromoteInterval * 1000, logger, clock)
    : undefined;

  const stop = async (signal: string): Promise<void> => {
    logger.info({ signal }, 'shutting down');
    scheduler?.stop();
    scrapes?.stop();
    await app.close();
    await started.close();
    store.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  await app.listen({ host: config.host, port: config.port });
  return new Promise<number>(() => {}); // serves until a signal
}
