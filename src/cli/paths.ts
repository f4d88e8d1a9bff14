// `cincy path` and `cincy explain`: clients of /api/v1/paths and /api/v1/explain, printing the answer
// in a compact form a person reads quickly (one line per hop, channel changes marked) or as JSON.
import { Command, Option } from 'commander';
import type { Static } from '#typebox';
import type { ExplainAnswer, PathsAnswer } from '../schemas/paths.js';
import { call, type ClientOptions } from './admin.js';
import { escapeLines } from './terminalText.js';
import { serverOptions } from './serverConnection.js';

type Paths = Static<typeof PathsAnswer>;
type Explained = Static<typeof ExplainAnswer>;

interface PathOptions extends ClientOptions {
  arch: string;
  channel?: string;
  eus?: boolean;
  acceptRisks?: string;
  limit: string;
}

interface ExplainOptions extends ClientOptions {
  arch: string;
  channel: string;
}

function client(cmd: Command): Command {
  return serverOptions(cmd)
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
    .option('--arch <arch>', 'architecture', 'amd64');
}

/** The human form of a paths answer. */
export function formatPaths(a: Paths): string {
  const lines: string[] = [];
  if (a.paths.length === 0) lines.push(`no path (${a.arch}): ${a.reason?.message ?? ''}`);
  a.paths.forEach((path, i) => {
    const risks = path.risksNotAccepted.length ? `, risks not accepted: ${path.risksNotAccepted.join(', ')}` : '';
    const switches = path.channelSwitches === 1 ? '1 channel switch' : `${path.channelSwitches} channel switches`;
    lines.push(`path ${i + 1}: ${path.hops.length} hop${path.hops.length === 1 ? '' : 's'}, ${switches}${risks}`);
    let channel = '';
    for (const hop of path.hops) {
      const switchTo = hop.channel !== channel ? `  [channel ${hop.channel}]` : '';
      channel = hop.channel;
      const kind = hop.recommended ? 'recommended' : `conditional: ${hop.risks.map((r) => r.name).join(', ')}`;
      lines.push(`  ${hop.from} -> ${hop.to}  (${kind})${switchTo}`);
    }
  });
  for (const note of a.notes) lines.push(`note: ${note}`);
  return `${lines.join('\n')}\n`;
}

/** The human form of an explain answer. */
export function formatExplanation(e: Explained): string {
  const lines = [`${e.from} -> ${e.to} in ${e.channel} (${e.arch}): ${e.edge ? 'edge' : 'no edge'} [${e.code}]`];
  lines.push(`  ${e.message}`);
  for (const r of e.risks ?? []) lines.push(`  risk ${r.name}: ${r.message} (${r.url})`);
  for (const b of e.blockedBy ?? [])
    lines.push(
      `  blocked-edges/${b.id}.yaml: from '${b.from}' to ${b.to}${b.risk ? ` (risk ${b.risk.name})` : ' (hard block)'}`,
    );
  for (const m of e.metadataRules ?? []) lines.push(`  ${m.version}: ${m.label}=${m.value}`);
  for (const n of e.notInChannel ?? []) if (n.feeder) lines.push(`  ${n.version}: ${n.feeder.message}`);
  return `${lines.join('\n')}\n`;
}

export function addPathCommands(program: Command, run: (f: () => Promise<number>) => () => Promise<void>): void {
  client(
    program
      .command('path')
      .description('plan update paths from one version to another (the server API /api/v1/paths)')
      .argument('<from>')
      .argument('<to>'),
  )
    .option('--channel <channel>', 'only edges of this channel')
    .option('--eus', 'EUS-to-EUS: through the odd minor between, on GA releases and recommended edges where they reach')
    .option('--accept-risks <names>', 'risk names accepted, comma-separated')
    .option('--limit <n>', 'how many paths (1-10)', '3')
    .action((from: string, to: string, opts: PathOptions) =>
      run(async () => {
        const q = new URLSearchParams({ from, to, arch: opts.arch, limit: opts.limit });
        if (opts.channel) q.set('channel', opts.channel);
        if (opts.eus) q.set('mode', 'eus');
        if (opts.acceptRisks) q.set('acceptRisks', opts.acceptRisks);
        const a = (await call(opts, 'GET', `/api/v1/paths?${q}`)) as Paths;
        process.stdout.write(opts.output === 'json' ? `${JSON.stringify(a, null, 2)}\n` : escapeLines(formatPaths(a)));
        return a.paths.length > 0 ? 0 : 1;
      })(),
    );

  client(
    program
      .command('explain')
      .description('explain why there is or is not an update edge in a channel (the server API /api/v1/explain)')
      .argument('<from>')
      .argument('<to>'),
  )
    .requiredOption('--channel <channel>', 'the channel asked about')
    .action((from: string, to: string, opts: ExplainOptions) =>
      run(async () => {
        const q = new URLSearchParams({ from, to, channel: opts.channel, arch: opts.arch });
        const e = (await call(opts, 'GET', `/api/v1/explain?${q}`)) as Explained;
        process.stdout.write(
          opts.output === 'json' ? `${JSON.stringify(e, null, 2)}\n` : escapeLines(formatExplanation(e)),
        );
        return 0;
      })(),
    );
}
