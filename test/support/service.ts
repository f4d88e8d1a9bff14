// The service started in the test's process as serve starts it (app/start/service.ts), without HTTP:
// every part made, the store connected and the first graph built, or the problems that stopped it.
import {
  prepareService,
  type PreparedService,
  type StartOptions,
  type StartOutcome,
} from '../../src/app/start/service.js';

export type StartResult =
  (Omit<PreparedService, 'start'> & Extract<StartOutcome, { ok: true }>) | { ok: false; problems: string[] };

/** prepareService and start() in one: resolves once the first graph is built, or with the problems. */
export async function startService(opts: StartOptions): Promise<StartResult> {
  const prepared = prepareService(opts);
  if (!prepared.ok) return prepared;
  const { start, ...parts } = prepared;
  const outcome = await start();
  if (!outcome.ok) {
    await prepared.close();
    return { ok: false, problems: outcome.problems };
  }
  return { ...parts, ...outcome };
}
