// `cincy payload create|ls|extract`: make release payloads in the payload store (the folder the mock
// cluster's download Job and the agent read), list them, and copy one out as `oc adm release extract` does.
import { cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import semver from 'semver';
import { generatePayload } from '../payload/generate.js';
import { loadPayload, type Payload } from '../payload/load.js';
import { DEFAULT_PAYLOAD_STORE, PayloadStore } from '../payload/store.js';
import { call, HttpError } from './admin.js';
import { recordTable } from './table.js';

interface CreateOptions {
  version?: string;
  image?: string;
  previous?: string;
  url?: string;
  release?: string;
  arch: string;
  server: string;
  store: string;
}

/** The payload store folder, one setting for every command that reads or writes payloads. */
export const payloadStoreOption = (flag: string, description: string): Option =>
  new Option(`${flag} <dir>`, description).env('CINCY_PAYLOAD_STORE').default(DEFAULT_PAYLOAD_STORE);
const storeOption = (): Option => payloadStoreOption('--store', 'payload store folder');

function semverFlag(flag: string, v: string): string {
  if (semver.valid(v) !== v) throw new Error(`${flag}: ${v} is not a semantic version (such as 4.16.5)`);
  return v;
}

function summary(p: Payload): { manifests: number; operators: number; runlevels: number[] } {
  const operators = new Set(
    p.manifests.flatMap((m) => m.docs.filter((d) => d.kind === 'ClusterOperator').map((d) => d.metadata.name)),
  );
  return {
    manifests: p.manifests.length,
    operators: operators.size,
    runlevels: [...new Set(p.manifests.map((m) => m.runlevel))].sort((a, b) => a - b),
  };
}

/** What to generate: from the flags, or from the release record a cincy server holds (--release). */
async function target(o: CreateOptions): Promise<{ version: string; image: string; previous: string[]; url?: string }> {
  if (o.release) {
    if (o.version || o.image)
      throw new Error('--release: reads the version and image from the server; do not also give --version or --image');
    const path = `/api/v1/releases/${encodeURIComponent(o.arch)}/${encodeURIComponent(semverFlag('--release', o.release))}`;
    let r: { release: { version: string; payload: string; previous?: string[]; metadata?: Record<string, string> } };
    try {
      r = (await call({ server: o.server, output: 'json' }, 'GET', path)) as typeof r;
    } catch (err) {
      throw new Error(
        `--release: ${err instanceof HttpError ? `${o.server}: ${err.message}` : (err as Error).message}`,
      );
    }
    return {
      version: r.release.version,
      image: r.release.payload,
      previous: o.previous ? [] : (r.release.previous ?? []),
      url: o.url ?? r.release.metadata?.url,
    };
  }
  if (!o.version) throw new Error('--version: required (or --release to read the release from a cincy server)');
  if (!o.image) throw new Error('--image: required with --version: the release image pull spec, <repo>@sha256:<hex>');
  return { version: semverFlag('--version', o.version), image: o.image, previous: [], url: o.url };
}

async function create(o: CreateOptions): Promise<number> {
  const t = await target(o);
  const previous = [
    ...t.previous,
    ...(o.previous ?? '')
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean)
      .map((v) => semverFlag('--previous', v)),
  ];
  const store = new PayloadStore(o.store);
  try {
    store.digestOf(t.image);
  } catch (err) {
    throw new Error(`${o.release ? "--release: the release record's payload" : '--image'}: ${(err as Error).message}`);
  }
  const path = store.write(
    t.image,
    generatePayload({ version: t.version, image: t.image, arch: o.arch, previous, url: t.url }),
  );
  const s = summary(loadPayload(path));
  process.stdout.write(`wrote ${t.version} (${t.image}) to ${path}\n`);
  process.stdout.write(
    `${s.manifests} manifests, ${s.operators} cluster operators, ${s.runlevels.length} runlevels: ${s.runlevels.join(', ')}\n`,
  );
  return 0;
}

function list(o: { store: string; output: string }): number {
  const store = new PayloadStore(o.store);
  const root = join(store.dir, 'sha256');
  const hexes = existsSync(root)
    ? readdirSync(root)
        .filter((n) => /^[0-9a-f]{64}$/.test(n))
        .sort()
    : [];
  const rows: Array<Record<string, unknown>> = [];
  let code = 0;
  for (const hex of hexes) {
    try {
      const p = loadPayload(join(root, hex));
      const s = summary(p);
      rows.push({
        digest: `sha256:${hex}`,
        version: p.version,
        manifests: s.manifests,
        operators: s.operators,
        runlevels: s.runlevels.length,
      });
    } catch (err) {
      process.stderr.write(`cincy: sha256:${hex}: ${(err as Error).message}\n`);
      code = 1;
    }
  }
  if (o.output === 'json') process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  else if (!hexes.length) process.stdout.write(`no payloads in ${store.dir}\n`);
  else process.stdout.write(recordTable(rows, ['digest', 'version', 'manifests', 'operators', 'runlevels']));
  return code;
}

function extract(image: string, o: { to: string; store: string }): number {
  const store = new PayloadStore(o.store);
  if (!store.has(image)) {
    store.digestOf(image); // a tag-only pull spec says so first
    throw new Error(`${image}: not in the payload store ${store.dir} (cincy payload create)`);
  }
  const p = loadPayload(store.pathOf(image));
  mkdirSync(o.to, { recursive: true });
  cpSync(store.pathOf(image), o.to, { recursive: true });
  process.stdout.write(
    `extracted ${p.version}: ${p.manifests.length} manifests, release-metadata and image-references to ${o.to}\n`,
  );
  return 0;
}

export function addPayloadCommands(program: Command, run: (f: () => Promise<number>) => () => Promise<void>): void {
  const payload = program
    .command('payload')
    .description('release payloads: the manifests an update applies, kept in a payload store folder by image digest');
  payload
    .command('create')
    .description(
      'generate the payload of a release into the store (--version and --image, or --release from a cincy server)',
    )
    .option('--version <v>', 'the release version')
    .option('--image <pullspec>', 'the release image, pinned by digest: <repo>@sha256:<hex>')
    .option('--previous <list>', 'comma-separated versions for release-metadata previous')
    .option('--url <url>', 'errata URL for release-metadata metadata.url')
    .option('--release <v>', 'read version, image, previous and errata URL from the release record of a cincy server')
    .option('--arch <arch>', 'architecture of the release record', 'amd64')
    .addOption(
      new Option('--server <url>', 'cincy server (with --release)')
        .env('CINCY_SERVER')
        .default('http://127.0.0.1:8080'),
    )
    .addOption(storeOption())
    .action((opts: CreateOptions) => run(() => create(opts))());
  payload
    .command('ls')
    .description('list the payloads of the store')
    .addOption(storeOption())
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
    .action((opts: { store: string; output: string }) => run(async () => list(opts))());
  payload
    .command('extract')
    .description('copy the release-manifests of a stored payload to a folder, as oc adm release extract --to does')
    .argument('<image>', 'release image pull spec by digest')
    .requiredOption('--to <dir>', 'folder to write the files to')
    .addOption(storeOption())
    .action((image: string, opts: { to: string; store: string }) => run(async () => extract(image, opts))());
}
