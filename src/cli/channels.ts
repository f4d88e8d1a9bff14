// `cincy channel ls|get|put|rm` and `cincy tombstone ls|add|rm`: channels and their tombstones over the
// admin API, public ones by default and the promotion ladder's with --internal.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { ChannelDoc } from '../schemas/admin.js';
import { callWithStatus, channelPath, client, listAll, print, readPages, type ClientOptions } from './admin.js';
import { recordTable } from './table.js';
import { escapeLines } from './terminalText.js';

type ChannelOptions = ClientOptions & { internal?: boolean; reason?: string };
type Run = (f: () => Promise<number>) => () => Promise<void>;

const reasonQuery = (reason?: string): string => (reason ? `?reason=${encodeURIComponent(reason)}` : '');

/** A channel file (YAML or JSON, the graph-data layout: name, versions, feeder, tombstones). */
async function readChannelFile(file: string): Promise<{ name: string; body: Record<string, unknown> }> {
  const { parse } = await import('yaml');
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'), { maxAliasCount: 100 });
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new Error(`${file}: a channel is a mapping with name and versions`);
  const { name, ...body } = doc as Record<string, unknown>;
  if (typeof name !== 'string' || !name) throw new Error(`${file}: name: the channel's name is required`);
  return { name, body };
}

const channelRow = (c: ChannelDoc): Record<string, unknown> => ({
  name: c.name,
  versions: c.versions.length,
  latest: c.versions.at(-1)?.version ?? '',
  feeder: c.feeder?.name ?? '',
  tombstones: c.tombstones.length,
});

function internalFlag(cmd: Command): Command {
  return cmd.option('--internal', 'an internal channel of the promotion ladder (candidate, fast, stable)');
}

export function addChannelCommands(program: Command, run: Run): void {
  const channel = program.command('channel').description('list, read, create, replace and delete channels');
  client(internalFlag(channel.command('ls').description('list channels'))).action((opts: ChannelOptions) =>
    run(async () => {
      const base = opts.internal ? '/api/v1/internal-channels' : '/api/v1/channels';
      const channels = (await listAll(opts, base, 'channels')) as unknown as ChannelDoc[];
      print(opts, { channels }, channels.map(channelRow), ['name', 'versions', 'latest', 'feeder', 'tombstones']);
      return 0;
    })(),
  );
  client(internalFlag(channel.command('get').description('a channel: its versions in order, feeder and tombstones')))
    .argument('<name>')
    .action((name: string, opts: ChannelOptions) =>
      run(async () => {
        const path = channelPath(name, opts.internal);
        const { first, items: versions } = await readPages(opts, path, 'versions');
        const doc = { ...(first as unknown as ChannelDoc), versions } as ChannelDoc & { nextCursor?: string };
        delete doc.nextCursor;
        if (opts.output === 'json') return (print(opts, doc, [], []), 0);
        const head = [
          `Channel:    ${doc.name} (${doc.kind})`,
          ...(doc.feeder ? [`Feeder:     ${doc.feeder.name}`] : []),
          `Tombstones: ${doc.tombstones.join(', ') || '(none)'}`,
        ];
        process.stdout.write(escapeLines(`${head.join('\n')}\n`) + recordTable(versions, ['version', 'addedAt']));
        return 0;
      })(),
    );
  client(
    internalFlag(
      channel
        .command('put')
        .description('create or replace channels from channel files (YAML or JSON: name, versions, feeder, tombstones)')
        .argument('<file...>'),
    ),
  ).action((files: string[], opts: ChannelOptions) =>
    run(async () => {
      const docs = [];
      for (const file of files) {
        const { name, body } = await readChannelFile(file);
        const { status, body: doc } = await callWithStatus(opts, 'PUT', channelPath(name, opts.internal), body);
        docs.push(doc as ChannelDoc);
        if (opts.output !== 'json')
          process.stdout.write(escapeLines(`${name}: ${status === 201 ? 'created' : 'replaced'} (${status})\n`));
      }
      if (opts.output === 'json') print(opts, docs, [], []);
      return 0;
    })(),
  );
  client(internalFlag(channel.command('rm').description('delete a channel with its versions and tombstones')))
    .argument('<name>')
    .option('--reason <text>', 'why (recorded in the audit log)')
    .action((name: string, opts: ChannelOptions) =>
      run(async () => {
        const r = await callWithStatus(
          opts,
          'DELETE',
          `${channelPath(name, opts.internal)}${reasonQuery(opts.reason)}`,
        );
        if (opts.output === 'json') print(opts, r.body, [], []);
        else process.stdout.write(escapeLines(`${name} deleted\n`));
        return 0;
      })(),
    );

  addTombstoneCommands(program, run);
}

function addTombstoneCommands(program: Command, run: Run): void {
  const tombstone = program
    .command('tombstone')
    .description("a channel's tombstones: versions promotion must never add to it again");
  const channelFlag = (cmd: Command): Command =>
    internalFlag(cmd.requiredOption('--channel <name>', 'the channel the tombstones belong to'));
  const path = (opts: ChannelOptions & { channel: string }, version: string): string =>
    `${channelPath(opts.channel, opts.internal)}/tombstones/${encodeURIComponent(version)}${reasonQuery(opts.reason)}`;

  client(channelFlag(tombstone.command('ls').description("list a channel's tombstones"))).action(
    (opts: ChannelOptions & { channel: string }) =>
      run(async () => {
        const doc = (await callWithStatus(opts, 'GET', channelPath(opts.channel, opts.internal))).body as ChannelDoc;
        if (opts.output === 'json') print(opts, { tombstones: doc.tombstones }, [], []);
        else process.stdout.write(escapeLines(doc.tombstones.map((t) => `${t}\n`).join('')));
        return 0;
      })(),
  );
  client(
    channelFlag(
      tombstone
        .command('add')
        .description('tombstone a version that is not in the channel (cincy withdraw removes and tombstones a member)')
        .argument('<version>')
        .option('--reason <text>', 'why (recorded in the audit log)'),
    ),
  ).action((version: string, opts: ChannelOptions & { channel: string }) =>
    run(async () => {
      const r = await callWithStatus(opts, 'PUT', path(opts, version));
      if (opts.output === 'json') print(opts, r.body, [], []);
      else
        process.stdout.write(
          escapeLines(`${version} ${r.status === 201 ? 'tombstoned' : 'was tombstoned already'} in ${opts.channel}\n`),
        );
      return 0;
    })(),
  );
  client(
    channelFlag(
      tombstone
        .command('rm')
        .description('lift a tombstone: promotion may add the version again')
        .argument('<version>')
        .option('--reason <text>', 'why (recorded in the audit log)'),
    ),
  ).action((version: string, opts: ChannelOptions & { channel: string }) =>
    run(async () => {
      const r = await callWithStatus(opts, 'DELETE', path(opts, version));
      if (opts.output === 'json') print(opts, r.body, [], []);
      else process.stdout.write(escapeLines(`tombstone of ${version} lifted in ${opts.channel}\n`));
      return 0;
    })(),
  );
}
