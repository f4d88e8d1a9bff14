// `cincy mirror-plan`: a client of /api/v1/mirror-plan. It prints what a disconnected mirror must hold for
// clusters at some versions to reach a target, or the oc-mirror v2 ImageSetConfiguration for it (-o yaml),
// and with --check asks the mirror's repository which of those release images it lacks.
import { Command, Option } from 'commander';
import type { Static } from '#typebox';
import { UNSERVED } from '../schemas/fleet.js';
import type { MirrorPlanAnswer } from '../schemas/paths.js';
import { call, listAll, type ClientOptions } from './admin.js';
import { serverOptions } from './serverConnection.js';
import { escapeLines } from './terminalText.js';

type Plan = Static<typeof MirrorPlanAnswer>;

interface MirrorPlanOptions extends ClientOptions {
  to: string;
  from?: string;
  fleet?: boolean;
  arch: string;
  channel?: string;
  eus?: boolean;
  check?: string;
  registryCredentials?: string;
  registryCa?: string;
}

/** Whether the mirror holds each release image, by its digest. */
/**
 * What the mirror answered for each release image asked for by digest: there with that digest, not there,
 * or there under another digest (a mirror that answers 200 for what it does not hold is not trusted).
 */
type Presence = Map<string, 'present' | 'missing' | 'another-digest'>;

export function addMirrorPlanCommand(program: Command, run: (f: () => Promise<number>) => () => Promise<void>): void {
  const command = program
    .command('mirror-plan')
    .description(
      'what to mirror for clusters at --from to reach --to (the server API /api/v1/mirror-plan): the releases on the planned paths, as an oc-mirror v2 ImageSetConfiguration with -o yaml',
    )
    .requiredOption('--to <version>', 'the version to reach')
    .option('--from <versions>', 'the versions the clusters run, comma-separated (none: the target alone)')
    .option(
      '--fleet',
      'the versions the clusters that poll this server run (of --arch, and of --channel when given), from the fleet API: needs --token with fleet:read',
    )
    .option('--channel <channel>', 'only edges of this channel')
    .option(
      '--eus',
      'EUS-to-EUS: through the odd minor between, on GA releases and recommended edges where they reach (and mirrored)',
    )
    .option('--arch <arch>', 'architecture', 'amd64')
    .option(
      '--check <repository>',
      "the mirror's release repository, [http://]HOST[:PORT]/REPOSITORY: say which release images it lacks",
    )
    .option('--registry-credentials <file>', 'docker/podman config.json with credentials for --check')
    .option('--registry-ca <file>', 'PEM CA bundle the mirror certificate is checked against (--check)');
  serverOptions(command)
    .addOption(new Option('--token <jwt>', 'a token with fleet:read, for --fleet').env('CINCY_TOKEN'))
    .addOption(
      new Option('-o, --output <format>', 'table, json (the whole plan) or yaml (the ImageSetConfiguration)')
        .choices(['table', 'json', 'yaml'])
        .default('table'),
    )
    .action((opts: MirrorPlanOptions) =>
      run(async () => {
        const q = new URLSearchParams({ to: opts.to, arch: opts.arch });
        if (opts.from && opts.fleet) throw new Error('--from and --fleet: give one of them');
        if (opts.from) q.set('from', opts.from.replace(/\s+/g, ''));
        const fleet = opts.fleet ? await fleetVersions(opts) : undefined;
        // None but versions the graph lacks: the target is planned alone, and the exit code says the rest.
        if (fleet?.versions.length) q.set('from', fleet.versions.join(','));
        if (opts.channel) q.set('channel', opts.channel);
        if (opts.eus) q.set('mode', 'eus');
        const plan = (await call(opts, 'GET', `/api/v1/mirror-plan?${q}`)) as Plan;
        const presence = opts.check ? await checkMirror(plan, opts) : undefined;
        const output = opts.output as string;
        // The YAML writer is loaded for this output only: every command's start would load it otherwise.
        if (output === 'yaml')
          process.stdout.write((await import('./yamlOutput.js')).toYaml(plan.imageSetConfiguration));
        else if (output === 'json')
          process.stdout.write(
            `${JSON.stringify(presence ? { ...plan, mirror: Object.fromEntries(presence) } : plan, null, 2)}\n`,
          );
        else process.stdout.write(escapeLines(formatPlan(plan, presence)));
        if (fleet?.unserved)
          process.stderr.write(
            `cincy: ${fleet.unserved} cluster(s) run a version the graph does not have (recorded as '${UNSERVED}'): ` +
              'no path from it can be planned\n',
          );
        const unreachable = plan.sources.some((s) => 'reason' in s) || (fleet?.unserved ?? 0) > 0;
        const missing = presence && [...presence.values()].some((p) => p !== 'present');
        return unreachable || missing || plan.releases.length === 0 ? 1 : 0;
      })(),
    );
}

/**
 * The versions the fleet's clusters run, on the plan's arch (and channel), that are not the target; and
 * how many clusters run a version the graph does not have, which no plan can start from.
 */
async function fleetVersions(opts: MirrorPlanOptions): Promise<{ versions: string[]; unserved: number }> {
  const groups = (await listAll({ ...opts, output: 'json' }, '/api/v1/fleet', 'groups')) as Array<{
    channel: string;
    arch: string;
    version: string | null;
    clusters: number;
  }>;
  const versions = new Set<string>();
  let unserved = 0;
  for (const g of groups) {
    if (!g.version || g.version === opts.to || g.arch !== opts.arch || (opts.channel && g.channel !== opts.channel))
      continue;
    if (g.version === UNSERVED) unserved += g.clusters;
    else versions.add(g.version);
  }
  if (versions.size === 0 && unserved === 0)
    throw new Error(
      `--fleet: no cluster on ${opts.arch}${opts.channel ? ` in ${opts.channel}` : ''} polls this server with a version`,
    );
  return { versions: [...versions], unserved };
}

/**
 * Asks the mirror's repository for each release image by digest: its manifest is fetched and hashed (the
 * registry client refuses content of another digest), so a mirror, or anything between, that answers 200
 * or names the digest asked for without holding that manifest is not taken at its word.
 */
async function checkMirror(plan: Plan, opts: MirrorPlanOptions): Promise<Presence> {
  const [{ RegistryClient, RegistryError }, { parseRepository }, { registryAccess }] = await Promise.all([
    import('../registry/client.js'),
    import('../registry/reference.js'),
    import('./registryFlags.js'),
  ]);
  const client = new RegistryClient(parseRepository(opts.check!, '--check'), registryAccess(opts));
  const presence: Presence = new Map();
  try {
    for (const r of plan.releases) {
      const digest = r.payload.slice(r.payload.indexOf('@') + 1);
      try {
        await client.manifest(digest);
        presence.set(r.version, 'present');
      } catch (err) {
        if (!(err instanceof RegistryError)) throw err;
        if (err.status === 404) presence.set(r.version, 'missing');
        else if (err.message.includes('received content has digest')) presence.set(r.version, 'another-digest');
        else throw err;
      }
    }
  } finally {
    await client.close();
  }
  return presence;
}

const PRESENCE_TEXT = {
  present: 'in the mirror',
  missing: 'MISSING from the mirror',
  'another-digest': 'MISSING: the mirror answered with another digest',
} as const;

function formatPlan(plan: Plan, presence: Presence | undefined): string {
  const lines: string[] = [];
  for (const s of plan.sources)
    lines.push(
      'path' in s ? `from ${s.from}: ${s.path.join(' -> ')}` : `from ${s.from}: no path (${s.reason.message})`,
    );
  lines.push(
    `mirror for ${plan.to} (${plan.arch}): ${plan.releases.length} release${plan.releases.length === 1 ? '' : 's'}`,
  );
  for (const r of plan.releases) {
    const where = presence ? `  ${PRESENCE_TEXT[presence.get(r.version) ?? 'missing']}` : '';
    lines.push(`  ${r.version}  ${r.role}  ${r.channel}  ${r.payload}${where}`);
  }
  for (const note of plan.notes) lines.push(`note: ${note}`);
  return `${lines.join('\n')}\n`;
}
