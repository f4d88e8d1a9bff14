// `cincy changes`: graph history from a server (GET /api/v1/changes, public like the graph): each
// change to the served graph with its time, channel and arch, cause and actor, newest first.
import type { Command } from 'commander';
import { parseSingleUnitDuration } from '../duration.js';
import { CHANGE_KINDS } from '../history/change.js';
import { client, listAll, print, type ClientOptions } from './admin.js';

interface ChangesOptions extends ClientOptions {
  channel?: string;
  arch?: string;
  since?: string;
  until?: string;
  kind?: string;
  json?: boolean;
  max: string;
}

export class ChangesUsageError extends Error {}

/** An ISO 8601 time as given, or a span back from `now` (7d, 12h) as the time it starts at. */
export function timeOption(name: string, value: string, now: Date): string {
  if (/^[1-9][0-9]*[smhd]$/.test(value)) return new Date(now.getTime() - parseSingleUnitDuration(value)!).toISOString();
  if (Number.isNaN(Date.parse(value)))
    throw new ChangesUsageError(`--${name}: ${value} is neither a time (2026-01-31T00:00:00Z) nor a span back (7d)`);
  return value;
}

export function addChangesCommand(program: Command, run: (f: () => Promise<number>) => () => Promise<void>): void {
  client(
    program
      .command('changes')
      .description(
        'graph history (the server API /api/v1/changes): the changes to the served graph, newest first, with their cause and actor',
      )
      .option('--channel <channel>', 'only this channel')
      .option('--arch <arch>', 'only this arch')
      .option('--since <time>', 'only changes since: a time (2026-01-31T00:00:00Z) or a span back (7d, 12h)')
      .option('--until <time>', 'only changes before: a time or a span back')
      .option('--kind <kinds>', `only these kinds, comma-separated: ${CHANGE_KINDS.join(', ')}`)
      .option('--json', 'print JSON (as -o json)')
      .option('--max <n>', 'at most this many changes', '1000'),
  ).action((opts: ChangesOptions) =>
    run(async () => {
      const now = new Date();
      const q = new URLSearchParams();
      try {
        if (opts.channel) q.set('channel', opts.channel);
        if (opts.arch) q.set('arch', opts.arch);
        if (opts.since) q.set('since', timeOption('since', opts.since, now));
        if (opts.until) q.set('until', timeOption('until', opts.until, now));
        if (opts.kind) q.set('kind', opts.kind);
        if (!/^[1-9][0-9]*$/.test(opts.max)) throw new ChangesUsageError(`--max: ${opts.max} is not a positive number`);
      } catch (err) {
        if (!(err instanceof ChangesUsageError)) throw err;
        process.stderr.write(`cincy changes: ${err.message}\n`);
        return 2;
      }
      const changes = await listAll(opts, '/api/v1/changes', 'changes', q, Number(opts.max));
      print(
        opts.json ? { ...opts, output: 'json' } : opts,
        { changes },
        changes.map((c) => ({
          at: c.at,
          kind: c.kind,
          where: `${c.channel ?? ''}/${c.arch ?? ''}`,
          what: c.version ?? c.risk ?? `${String(c.from)} -> ${String(c.to)}`,
          cause: c.cause ?? '',
          actor: c.actor ?? '',
        })),
        ['at', 'kind', 'where', 'what', 'cause', 'actor'],
      );
      return 0;
    })(),
  );
}
