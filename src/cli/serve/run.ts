// The steps of `cincy serve`, in order: settings (flags resolved, then typed once: settings.ts), the log,
// the service's parts (app/start/service.ts), the first graph (started at once), the HTTP server, listening (listen.ts),
// then the jobs that run in the background. It serves until SIGINT or SIGTERM; a step that cannot be
// taken ends the start with one line on standard error and exit code 1.
import type { TreeAtStart } from '../../sources/treeAtStart.js';
import pino, { type Logger } from 'pino';
import type { Server as HttpsServer } from 'node:https';
import { startAutoPromotion } from '../../app/autoPromotion.js';
import { startSourceRefresh } from '../../app/refresh/loop.js';
import { prepareService, type PreparedService, type StartOutcome } from '../../app/start/service.js';
import { systemClock } from '../../clock.js';
import { checkDbFolder, resolveServeConfig, type ServeFlags } from '../../config.js';
import { buildApp } from '../../server/app.js';
import { watchTls } from '../../server/tls.js';
import { redactedLocation } from '../../store/postgresConnection.js';
import { demoConflictMessage } from '../demoConflict.js';
import { FlagProblem } from '../flagProblem.js';
import { logDestination } from '../logFormat.js';
import { escapeLine } from '../terminalText.js';
import { listen } from './listen.js';
import { serveSettings, type ServeSettings } from './settings.js';

/** Something the jobs list stops on shutdown. */
type Job = { stop(): void };

export async function run(flags: ServeFlags, tree: TreeAtStart | undefined) {
  const config = resolveServeConfig(flags);
  const folderProblem = checkDbFolder(config.db, flags, process.env);
  if (folderProblem) return cannotServe([folderProblem]);
  let settings: ServeSettings;
  try {
    settings = await serveSettings(config);
  } catch (err) {
    if (err instanceof FlagProblem) return cannotServe([err.message]);
    throw err;
  }
  const logger = startLog(settings);
  // One clock for the store, the graph, the admin services, token checks and auto-promotion.
  const clock = systemClock;
  const treeRead = tree && settings.service.graphData === tree.path ? tree : undefined;
  const prepared = prepareService({ ...settings.service, log: logger, clock, treeRead });
  if (!prepared.ok) return cannotServe(prepared.problems);
  // Connecting and the first graph go on while the server is made (a restart's graph is built on the
  // build worker meanwhile); /readyz says why nothing is served until they are done.
  const starting = prepared.start();
  const app = await buildApp({
    ...settings.server,
    ...{ service: prepared.service, admin: prepared.admin, fleet: prepared.fleet, webhooks: prepared.webhooks },
    rollouts: prepared.rollouts,
    logger,
    clock,
  }).catch(async (err: unknown) => {
    await prepared.close(); // stops the start going on meanwhile
    throw err;
  });
  const jobs: Job[] = [];
  const stop = async (): Promise<void> => {
    for (const job of jobs) job.stop();
    await app.close();
    await prepared.close();
  };
  onSignals(logger, stop);
  // Listening before the first graph is served: /livez answers, and /readyz says why nothing is served
  // while the store is reached, imported and built.
  const listenProblem = await listen(app, settings.server.host, settings.server.port);
  if (listenProblem) return stop().then(() => cannotServe([listenProblem]));
  const { tls } = settings.server;
  if (tls) jobs.push({ stop: watchTls(app.server as unknown as HttpsServer, tls.files, tls, logger) });
  const started = await starting;
  if (!started.ok) return stop().then(() => cannotServe(startProblems(started)));
  await sayWhatIsServed(prepared, settings, logger);
  void started.firstRead.then(() => jobs.push(...sourceRefresh(prepared, settings)));
  jobs.push(...autoPromotion(prepared, settings, logger));
  return new Promise<number>(() => {}); // serves until a signal
}

function cannotServe(problems: string[]): number {
  process.stderr.write(`cincy: cannot serve: ${problems.map(escapeLine).join('\n  ')}\n`);
  return 1;
}

/** A demo conflict in the command line's words (which flags to change); other problems as they are. */
function startProblems(outcome: Extract<StartOutcome, { ok: false }>): string[] {
  return outcome.demoConflict ? [demoConflictMessage(outcome.demoConflict)] : outcome.problems;
}

function startLog(settings: ServeSettings): Logger {
  // Tokens never reach the log: requests are logged without headers, and this is a second guard.
  const logger = pino(
    { level: settings.log.level, redact: ['req.headers.authorization', 'headers.authorization'] },
    logDestination(settings.log.format),
  );
  for (const warning of settings.warnings) logger.warn({}, warning);
  return logger;
}

function onSignals(logger: Logger, stop: () => Promise<void>): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      logger.info({ signal }, 'shutting down');
      void stop().then(() => process.exit(0));
    });
}

/** Says when the demo is served, or when nothing will be until a source brings releases. */
async function sayWhatIsServed(prepared: PreparedService, settings: ServeSettings, logger: Logger): Promise<void> {
  const db = redactedLocation(settings.service.db);
  if (prepared.service.demo)
    logger.warn(
      { db },
      'serving the bundled DEMO data (invented releases, payloads on quay.example.com), not real data; ' +
        'for real data, serve --graph-data DIR, --releases REPOSITORY or --graph-data-image IMAGE on a store of its own (--db)',
    );
  else if (
    !settings.service.graphData &&
    !prepared.sources.length &&
    !(await prepared.store.read((tx) => tx.hasContent()))
  )
    logger.warn(
      { db },
      'the store is empty and no source is given: nothing is served until --graph-data DIR, --releases REPOSITORY, ' +
        '--graph-data-image IMAGE, `cincy import` or the admin API brings releases (--demo serves the bundled demo)',
    );
}

/** The sources read again each interval, by the leading replica (after the first read). */
function sourceRefresh(prepared: PreparedService, settings: ServeSettings): Job[] {
  const { sources, service, leadership } = prepared;
  if (!sources.length) return [];
  return [startSourceRefresh(sources, service, settings.jobs.scrapeIntervalMs, systemClock, leadership)];
}

/** The feeders applied each interval, by the leading replica, with --auto-promote. */
function autoPromotion(prepared: PreparedService, settings: ServeSettings, logger: Logger): Job[] {
  const interval = settings.jobs.autoPromoteIntervalMs;
  if (!interval) return [];
  return [startAutoPromotion(prepared.admin.feeders, interval, logger, systemClock, prepared.leadership)];
}
