// `cincy fleet`: a client of the fleet API (/api/v1/fleet…, a token with the scope fleet:read). With no
// subcommand it prints the summary and the clusters by channel, arch and version; `clusters`,
// `exposure` and `updates` print those lists, every page of them.
import type { Command } from 'commander';
import { call, client, listAll, print, type ClientOptions } from './admin.js';

interface ClusterOptions extends ClientOptions {
  channel?: string;
  arch?: string;
  version?: string;
  stranded?: boolean;
  exposedTo?: string;
  silentFor?: string;
  id?: string;
  max?: string;
}

export function addFleetCommand(program: Command, run: (f: () => Promise<number>) => () => Promise<void>): void {
  const fleet = client(
    program
      .command('fleet')
      .description(
        'the clusters that poll the graph (the server API /api/v1/fleet, a token with fleet:read): how many on each channel, arch and version, stale, stranded, behind',
      )
      .option('--stale-after <duration>', 'a cluster silent longer than this counts as stale: 24h, 7d'),
  ).action((opts: ClientOptions & { staleAfter?: string }) =>
    run(async () => {
      const q = new URLSearchParams();
      if (opts.staleAfter) q.set('staleAfter', opts.staleAfter);
      const summary = (await call(opts, 'GET', `/api/v1/fleet?${q}`)) as Record<string, unknown>;
      const groups = await listAll(opts, '/api/v1/fleet', 'groups', q);
      if (opts.output === 'json') {
        print(opts, { ...summary, groups, nextCursor: undefined }, [], []);
        return 0;
      }
      const s = summary as {
        clusters: number;
        stale: number;
        stranded: number;
        behind: number;
        versionUnknown: number;
      };
      const polls = summary.polls as Record<string, number>;
      process.stdout.write(
        `clusters ${s.clusters}, stale ${s.stale}, stranded ${s.stranded}, behind ${s.behind}, version unknown ${s.versionUnknown}` +
          ` (polls not stored: ${polls.noId} without id, ${polls.malformed} malformed, ${(polls.batchFull ?? 0) + (polls.overCap ?? 0)} over a limit)\n`,
      );
      if (!summary.recording) process.stdout.write('this server records no polls (--no-fleet)\n');
      print(
        opts,
        undefined,
        groups.map((g) => ({
          ...g,
          version: g.version ?? '-',
          stranded: g.stranded ?? '',
          behind: g.behind ? 'yes' : '',
        })),
        ['channel', 'arch', 'version', 'clusters', 'stale', 'stranded', 'behind'],
      );
      return 0;
    })(),
  );

  client(
    fleet
      .command('clusters')
      .description('the clusters, filtered, each with the updates it is shown now')
      .option('--channel <channel>')
      .option('--arch <arch>')
      .option('--version <version>')
      .option('--stranded', 'only clusters whose version is not in their channel (or whose channel is unknown)')
      .option('--exposed-to <risk>', 'only clusters shown this risk on a conditional update')
      .option('--silent-for <duration>', 'only clusters silent longer than this: 24h, 7d')
      .option('--id <uuid>', 'one cluster, by the id it polls with')
      .option('--max <n>', 'at most this many clusters', '1000'),
  ).action((opts: ClusterOptions) =>
    run(async () => {
      const q = new URLSearchParams();
      for (const [key, value] of [
        ['channel', opts.channel],
        ['arch', opts.arch],
        ['version', opts.version],
        ['exposedTo', opts.exposedTo],
        ['silentFor', opts.silentFor],
        ['id', opts.id],
      ] as const)
        if (value !== undefined) q.set(key, value);
      if (opts.stranded) q.set('stranded', 'true');
      const clusters = await listAll(opts, '/api/v1/fleet/clusters', 'clusters', q, Number(opts.max));
      print(
        opts,
        { clusters },
        clusters.map((c) => ({
          ...c,
          version: c.version ?? '-',
          stranded: c.stranded ?? '',
          updates: `${(c.recommended as string[]).length} recommended, ${(c.conditional as unknown[]).length} conditional`,
          reported: reportedColumn(c.reported as Reported | undefined),
        })),
        ['id', 'channel', 'arch', 'version', 'lastSeen', 'stranded', 'updates', 'reported'],
      );
      return 0;
    })(),
  );

  client(
    fleet
      .command('exposure')
      .description('for each risk, the clusters shown it on a conditional update now')
      .option('--risk <name>', 'one risk')
      .option('--channel <name>', 'the clusters of one channel')
      .option('--arch <arch>', 'the clusters of one arch'),
  ).action((opts: ClientOptions & { risk?: string; channel?: string; arch?: string }) =>
    run(async () => {
      const q = new URLSearchParams();
      if (opts.risk) q.set('risk', opts.risk);
      if (opts.channel) q.set('channel', opts.channel);
      if (opts.arch) q.set('arch', opts.arch);
      const risks = await listAll(opts, '/api/v1/fleet/exposure', 'risks', q);
      print(
        opts,
        { risks },
        risks.map((r) => ({
          ...r,
          where: (r.groups as Array<{ channel: string; version: string; clusters: number }>)
            .slice(0, 3)
            .map((g) => `${g.channel} ${g.version} (${g.clusters})`)
            .join(', '),
        })),
        ['risk', 'clusters', 'where'],
      );
      return 0;
    })(),
  );

  client(
    fleet
      .command('updates')
      .description(
        'the updates clusters were seen to start (by their polls or reports), per edge, and what became of the reported ones',
      )
      .option('--since <duration>', 'updates seen in this span: 7d, 30d'),
  ).action((opts: ClientOptions & { since?: string }) =>
    run(async () => {
      const q = new URLSearchParams();
      if (opts.since) q.set('since', opts.since);
      const updates = await listAll(opts, '/api/v1/fleet/updates', 'updates', q);
      print(
        opts,
        { updates },
        updates.map((u) => ({ ...u, medianSeconds: u.medianSeconds ?? '-', p90Seconds: u.p90Seconds ?? '-' })),
        [
          'from',
          'to',
          'arch',
          'started',
          'completed',
          'failing',
          'silent',
          'progressing',
          'medianSeconds',
          'p90Seconds',
        ],
      );
      return 0;
    })(),
  );
}

interface Reported {
  version: string | null;
  update?: { from: string; to: string; state: string; reason?: string };
}

/** What a cluster reported, in a column: its version, and its newest update with where it stands. */
function reportedColumn(r: Reported | undefined): string {
  if (!r) return '';
  const u = r.update;
  const update = u ? ` (${u.from} → ${u.to}: ${u.state}${u.reason ? `, ${u.reason}` : ''})` : '';
  return `${r.version ?? '-'}${update}`;
}
