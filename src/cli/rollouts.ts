// `cincy rollout`: a client of the phased rollouts API (/api/v1/rollouts…; writes take a token with the
// scope rollouts:write). `declare` phases the edges into a release of a channel over a window, `ls` and
// `get` show where each rollout stands and what its clusters came to, `halt`, `resume` and `cancel` act
// on one.
import type { Command } from 'commander';
import { call, client, print, type ClientOptions } from './admin.js';

interface DeclareOptions extends ClientOptions {
  channel: string;
  to: string;
  from?: string;
  start?: string;
  duration: string;
  canary: string[];
  haltAfterFailures?: string;
  haltAfterFraction?: string;
  url?: string;
  reason?: string;
}

interface ActionOptions extends ClientOptions {
  reason?: string;
}

interface RolloutView {
  id: string;
  channel: string;
  to: string;
  from: string | null;
  start: string;
  end: string;
  phase: string;
  share: number;
  reason: string | null;
  counts: { took: number; completed: number; failing: number; silent: number } | null;
}

const row = (r: RolloutView): Record<string, unknown> => ({
  id: r.id,
  channel: r.channel,
  to: r.to,
  from: r.from ?? '*',
  phase: r.phase,
  offered: `${Math.round(r.share * 100)}%`,
  took: r.counts?.took ?? '',
  completed: r.counts?.completed ?? '',
  failed: r.counts ? r.counts.failing + r.counts.silent : '',
  start: r.start,
  end: r.end,
  reason: r.reason ?? '',
});
const COLUMNS = [
  'id',
  'channel',
  'to',
  'from',
  'phase',
  'offered',
  'took',
  'completed',
  'failed',
  'start',
  'end',
  'reason',
];

/** A bound of --halt-after-*: a number, or `off`. */
function bound(flag: string, text: string | undefined, integer: boolean): number | null | undefined {
  if (text === undefined) return undefined;
  if (text === 'off') return null;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n)))
    throw new Error(`${flag}: '${text}' is not ${integer ? 'a whole number' : 'a number'} nor 'off'`);
  return n;
}

export function addRolloutCommands(program: Command, run: (f: () => Promise<number>) => () => Promise<void>): void {
  const rollout = program
    .command('rollout')
    .description(
      'phased rollouts: the edges into a release reach a channel’s clusters one by one over a window (the server API /api/v1/rollouts, writes with a token with rollouts:write)',
    );

  client(
    rollout
      .command('declare')
      .description('phases the edges into a release of a channel over a window')
      .requiredOption('--channel <channel>', 'the public channel')
      .requiredOption('--to <version>', 'the target release: the edges into it are phased')
      .requiredOption('--duration <iso8601>', 'the window, e.g. PT6H or P2D')
      .option('--start <rfc3339>', 'when the first clusters are offered the edges (default: now)')
      .option('--from <regex>', 'only the edges from sources this regular expression finds (default: every source)')
      .option('--canary <cluster-id>', 'a cluster offered the edges at the start (repeatable)', collect, [])
      .option('--halt-after-failures <n>', "halt once this many clusters that took it failed, or 'off' (default 2)")
      .option('--halt-after-fraction <share>', "halt once this share of them failed, or 'off' (default 0.05)")
      .option('--url <url>', "the risk's URL while halted (default: the rollout in the server's API)")
      .option('--reason <text>', 'why, for the audit log'),
  ).action((opts: DeclareOptions) =>
    run(async () => {
      const failures = bound('--halt-after-failures', opts.haltAfterFailures, true);
      const fraction = bound('--halt-after-fraction', opts.haltAfterFraction, false);
      const body = {
        channel: opts.channel,
        to: opts.to,
        start: opts.start ?? new Date().toISOString(),
        duration: opts.duration,
        ...(opts.from !== undefined && { from: opts.from }),
        ...(opts.canary.length > 0 && { canaries: opts.canary }),
        ...((failures !== undefined || fraction !== undefined) && {
          haltAfter: {
            ...(failures !== undefined && { failures }),
            ...(fraction !== undefined && { fraction }),
          },
        }),
        ...(opts.url !== undefined && { url: opts.url }),
        ...(opts.reason !== undefined && { reason: opts.reason }),
      };
      const created = (await call(opts, 'POST', '/api/v1/rollouts', body)) as RolloutView;
      print(opts, created, [row(created)], COLUMNS);
      return 0;
    })(),
  );

  client(rollout.command('ls').description('the rollouts, newest first, with what their clusters came to')).action(
    (opts: ClientOptions) =>
      run(async () => {
        const list = (await call(opts, 'GET', '/api/v1/rollouts?limit=1000')) as { rollouts: RolloutView[] };
        print(opts, list, list.rollouts.map(row), COLUMNS);
        return 0;
      })(),
  );

  client(rollout.command('get <id>').description('one rollout')).action((id: string, opts: ClientOptions) =>
    run(async () => {
      const r = (await call(opts, 'GET', `/api/v1/rollouts/${encodeURIComponent(id)}`)) as RolloutView;
      print(opts, r, [row(r)], COLUMNS);
      return 0;
    })(),
  );

  const actions = {
    halt: 'halts a rollout: every cluster is served its edges conditional on the risk PhasedRolloutHalted',
    resume: 'resumes a halted rollout: the risk goes, each cluster is offered the edges at its turn',
    cancel: 'cancels a rollout: its edges are served to no cluster until another of its channel and target',
  };
  for (const [action, description] of Object.entries(actions)) {
    client(
      rollout.command(`${action} <id>`).description(description).option('--reason <text>', 'why, for the audit log'),
    ).action((id: string, opts: ActionOptions) =>
      run(async () => {
        const body = opts.reason !== undefined ? { reason: opts.reason } : {};
        const r = (await call(
          opts,
          'POST',
          `/api/v1/rollouts/${encodeURIComponent(id)}/${action}`,
          body,
        )) as RolloutView;
        print(opts, r, [row(r)], COLUMNS);
        return 0;
      })(),
    );
  }
}

const collect = (value: string, list: string[]): string[] => [...list, value];
