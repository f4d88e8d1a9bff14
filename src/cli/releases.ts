// `cincy release add|ls|get|rm`: release records over the admin API.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { ReleaseDetail } from '../schemas/admin.js';
import { call, callWithStatus, client, listAll, print, type ClientOptions } from './admin.js';
import { recordTable } from './table.js';
import { escapeLines } from './terminalText.js';

const COLUMNS = ['version', 'architecture', 'payload'];

/** The records of JSON files, one record or a list each; a file that is not JSON is named. */
function readRecords(files: string[]): unknown[] {
  return files.flatMap((f) => {
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(f, 'utf8'));
    } catch (err) {
      throw new Error(`${f}: ${(err as Error).message}`);
    }
    return Array.isArray(doc) ? doc : [doc];
  });
}

/** "stored 2 new releases, updated 1" or "already stored: nothing changed", from the server's counts. */
export function addedSummary(counts: { added: number; updated: number; unchanged: number }): string {
  const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;
  const parts = [
    counts.added && `stored ${plural(counts.added, 'new release')}`,
    counts.updated && `updated ${plural(counts.updated, 'release')}`,
    counts.unchanged && `${counts.unchanged} already stored as sent`,
  ].filter(Boolean);
  return counts.added + counts.updated === 0 ? 'already stored as sent: nothing changed' : parts.join(', ');
}

const releasePath = (version: string, arch: string): string =>
  `/api/v1/releases/${encodeURIComponent(arch)}/${encodeURIComponent(version)}`;

/** Registers `release`; `run` wraps an action so its exit code reaches main. */
export function addReleaseCommands(program: Command, run: (f: () => Promise<number>) => () => Promise<void>): void {
  const release = program.command('release').description('manage release records over the admin API');
  client(
    release
      .command('add')
      .description('add release records (JSON files, one record or a list each); says which were new')
      .argument('<file...>'),
  ).action((files: string[], opts: ClientOptions) =>
    run(async () => {
      const { status, body } = await callWithStatus(opts, 'POST', '/api/v1/releases', readRecords(files));
      const r = body as {
        releases: Array<Record<string, unknown>>;
        counts: { added: number; updated: number; unchanged: number };
      };
      if (opts.output === 'json') return (print(opts, r, [], []), 0);
      process.stdout.write(`${addedSummary(r.counts)} (${status})\n${recordTable(r.releases, COLUMNS)}`);
      return 0;
    })(),
  );

  client(
    release
      .command('ls')
      .description('list releases')
      .option('--arch <arch>')
      .option('--channel <name>')
      .option('--version <v>', 'a version or a prefix such as 4.16.*'),
  ).action((opts: ClientOptions & { arch?: string; channel?: string; version?: string }) =>
    run(async () => {
      const q = new URLSearchParams();
      for (const k of ['arch', 'channel', 'version'] as const) if (opts[k]) q.set(k, opts[k]!);
      const all = await listAll(opts, '/api/v1/releases', 'releases', q);
      print(opts, all, all, COLUMNS);
      return 0;
    })(),
  );

  client(
    release
      .command('get')
      .description('one release with its channels and risks')
      .argument('<version>')
      .option('--arch <arch>', 'architecture', 'amd64'),
  ).action((version: string, opts: ClientOptions & { arch: string }) =>
    run(async () => {
      const r = (await call(opts, 'GET', releasePath(version, opts.arch))) as ReleaseDetail;
      if (opts.output === 'json') return (print(opts, r, [], []), 0);
      const lines = [
        `Version:      ${r.release.version}`,
        `Architecture: ${r.release.architecture}`,
        `Payload:      ${r.release.payload}`,
        `Served:       ${r.served ? 'yes' : `no: ${r.withheldBecause ?? 'withheld'}`}`,
        `Channels:     ${r.channels.map((c) => (c.kind === 'internal' ? `${c.name} (internal)` : c.name)).join(', ') || '(none)'}`,
        `Risks:        ${r.risks.map((k) => `${k.risk?.name ?? 'hard block'} (from ${k.from})`).join(', ') || '(none)'}`,
        `Signatures:   ${r.signatures.map((g) => `${g.envelope} by ${g.keyId}`).join(', ') || '(none)'}`,
      ];
      process.stdout.write(escapeLines(`${lines.join('\n')}\n`));
      return 0;
    })(),
  );

  client(
    release
      .command('rm')
      .description('delete a release record (it leaves every channel graph; channel files still name it)')
      .argument('<version>')
      .option('--arch <arch>', 'architecture', 'amd64')
      .option('--reason <text>', 'why (recorded in the audit log)'),
  ).action((version: string, opts: ClientOptions & { arch: string; reason?: string }) =>
    run(async () => {
      const q = opts.reason ? `?reason=${encodeURIComponent(opts.reason)}` : '';
      const r = await call(opts, 'DELETE', `${releasePath(version, opts.arch)}${q}`);
      if (opts.output === 'json') print(opts, r, [], []);
      else process.stdout.write(escapeLines(`${version} (${opts.arch}) deleted\n`));
      return 0;
    })(),
  );
}
