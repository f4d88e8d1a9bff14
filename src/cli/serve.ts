// `cincy serve`: start the service (import if new, build), then listen until a signal.
import { resolveServeConfig, type ServeConfig } from '../config.js';
import { buildApp } from '../server/app.js';
import { startService } from '../server/start.js';
import pino from 'pino';

export async function serve(flags: Partial<Record<keyof ServeConfig, string>>): Promise<number> {
  const config = resolveServeConfig(flags);
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization'] });
  const started = await startService({ graphData: config.graphData, db: config.db, log: logger });
  if (!started.ok) {
    process.stderr.write(`cincy: cannot serve: ${started.problems.join('\n  ')}\n`);
    return 1;
  }
  const { store, service } = started;
  const app = await buildApp({ service, cacheMaxAge: config.cacheMaxAge, logger });

  const stop = async (signal: string): Promise<void> => {
    logger.info({ signal }, 'shutting down');
    await app.close();
    store.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  await app.listen({ host: config.host, port: config.port });
  return new Promise<number>(() => {}); // serves until a signal
}
