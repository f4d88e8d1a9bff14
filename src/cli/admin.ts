// The admin commands (promote, withdraw, risk, audit) and what every client of the admin REST API
// shares: --server and --token (or CINCY_SERVER and CINCY_TOKEN), tables by default and -o json.
// Release commands are in releases.ts, channel and tombstone commands in channels.ts.
import type { Dispatcher } from 'undici';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { MAX_PAGE_LIMIT } from '../pageLimits.js';
import { recordTable } from './table.js';
import { escapeLines } from './terminalText.js';
import { dispatcherFor, serverOptions, type ServerTarget } from './serverConnection.js';

export interface ClientOptions extends ServerTarget {
  token?: string;
  output: 'table' | 'json';
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: { kind?: string; value?: string },
    /** The answer's Retry-After, when it gave one in seconds. */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${status} ${body.kind ?? 'error'}: ${body.value ?? ''}`);
  }
}

/** A path under the server URL, keeping a base path the server may sit behind (https://host/cincy/). */
export function serverUrl(server: string, path: string): URL {
  return new URL(path.replace(/^\//, ''), server.endsWith('/') ? server : `${server}/`);
}

export async function call(opts: ClientOptions, method: string, path: string, body?: unknown): Promise<unknown> {
  return (await callWithStatus(opts, method, path, body)).body;
}

/** A request to the server and its answer: the status of a success with its parsed body, or an HttpError. */
export async function callWithStatus(
  opts: Pick<ClientOptions, 'server' | 'token' | 'certificateAuthority'>,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
  /** A request that may be given up: when `signal` aborts, or after `timeoutMs` without an answer. */
  limits: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = contentType;
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  // Loaded when a command asks the server, not when the commands are defined (`cincy --help` stays quick).
  const { request } = await import('undici');
  const dispatcher = await dispatcherFor(opts);
  let res: Dispatcher.ResponseData;
  try {
    res = await request(serverUrl(opts.server, path), {
      method: method as Dispatcher.HttpMethod,
      ...(dispatcher && { dispatcher }),
      headers,
      body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body),
      ...(limits.signal && { signal: limits.signal }),
      ...(limits.timeoutMs && { headersTimeout: limits.timeoutMs, bodyTimeout: limits.timeoutMs }),
    });
  } catch (err) {
    throw new Error(`cannot reach ${opts.server}: ${(err as Error).message}`);
  }
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    throw new Error(`${opts.server} answered ${res.statusCode} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  if (res.statusCode >= 300) {
    const retryAfter = Number(res.headers['retry-after']);
    throw new HttpError(
      res.statusCode,
      (parsed ?? {}) as { kind?: string; value?: string },
      Number.isSafeInteger(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
    );
  }
  return { status: res.statusCode, body: parsed };
}

/**
 * The items of a paginated list, page after page (following nextCursor), up to `max` of them.
 * `query` may hold filters; the page size is the server's largest.
 */
export async function listAll(
  opts: ClientOptions,
  path: string,
  field: string,
  query: URLSearchParams = new URLSearchParams(),
  max = Infinity,
): Promise<Array<Record<string, unknown>>> {
  return (await readPages(opts, path, field, query, max)).items;
}

/** Like listAll, also giving the first page whole (a document whose `field` is paginated, as a channel). */
export async function readPages(
  opts: ClientOptions,
  path: string,
  field: string,
  query: URLSearchParams = new URLSearchParams(),
  max = Infinity,
): Promise<{ first: Record<string, unknown>; items: Array<Record<string, unknown>> }> {
  const q = new URLSearchParams(query);
  const items: Array<Record<string, unknown>> = [];
  let first: Record<string, unknown> | undefined;
  for (;;) {
    q.set('limit', String(Math.min(MAX_PAGE_LIMIT, max - items.length)));
    const page = (await call(opts, 'GET', `${path}?${q}`)) as Record<string, unknown> & { nextCursor?: string };
    first ??= page;
    items.push(...(page[field] as Array<Record<string, unknown>>));
    if (!page.nextCursor || items.length >= max) return { first, items };
    q.set('cursor', page.nextCursor);
  }
}

export function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('not a whole number of at least 1');
  return n;
}

export function print(
  opts: ClientOptions,
  data: unknown,
  rows: Array<Record<string, unknown>>,
  columns: string[],
): void {
  process.stdout.write(opts.output === 'json' ? `${JSON.stringify(data, null, 2)}\n` : recordTable(rows, columns));
}

/** Adds --server, --certificate-authority, --token and -o to a command. */
export function client(cmd: Command): Command {
  return serverOptions(cmd)
    .addOption(new Option('--token <jwt>', 'admin token (cincy token create)').env('CINCY_TOKEN'))
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'));
}

export const channelPath = (channel: string, internal?: boolean): string =>
  `/api/v1/${internal ? 'internal-channels' : 'channels'}/${encodeURIComponent(channel)}`;

/** Registers the admin commands; `run` wraps an action so its exit code reaches main. */
export function addAdminCommands(program: Command, run: (f: () => Promise<number>) => () => Promise<void>): void {
  client(
    program
      .command('promote')
      .description("add a version to a channel, following the channel's feeder rules")
      .argument('<version>')
      .requiredOption('--to <channel>', 'target channel')
      .option('--internal', 'the target is an internal channel (candidate, fast, stable)')
      .option('--force', 'bypass the feeder rules (needs --reason)')
      .option('--reason <text>', 'why (recorded in the audit log)')
      .option('--dry-run', 'show what would change and the edges that would appear; change nothing'),
  ).action(
    (
      version: string,
      opts: ClientOptions & { to: string; internal?: boolean; force?: boolean; reason?: string; dryRun?: boolean },
    ) =>
      run(async () => {
        const body = { version, ...(opts.force && { force: true }), ...(opts.reason && { reason: opts.reason }) };
        const r = (await call(
          opts,
          'POST',
          `${channelPath(opts.to, opts.internal)}/versions${opts.dryRun ? '?dryRun=true' : ''}`,
          body,
        )) as {
          changed: boolean;
          forced: boolean;
          refusal?: { rule: string; message: string };
          edges?: Array<Record<string, unknown>>;
          conditionalEdges?: Array<Record<string, unknown>>;
        };
        if (opts.output === 'json') return (print(opts, r, [], []), 0);
        const what = opts.dryRun
          ? r.refusal
            ? `would be refused: ${r.refusal.rule}: ${r.refusal.message}`
            : r.changed
              ? 'would be promoted'
              : 'already there'
          : r.changed
            ? 'promoted'
            : 'already there, nothing changed';
        process.stdout.write(escapeLines(`${version} → ${opts.to}: ${what}${r.forced ? ' (forced)' : ''}\n`));
        if (r.edges?.length)
          process.stdout.write(`edges that would appear:\n${recordTable(r.edges, ['arch', 'from', 'to'])}`);
        if (r.conditionalEdges?.length)
          process.stdout.write(
            `conditional edges that would appear:\n${recordTable(r.conditionalEdges, ['arch', 'from', 'to', 'risks'])}`,
          );
        return 0;
      })(),
  );

  client(
    program
      .command('withdraw')
      .description('remove a version from a channel and tombstone it there')
      .argument('<version>')
      .requiredOption('--from <channel>', 'channel')
      .option('--internal', 'an internal channel')
      .option('--reason <text>', 'why (recorded in the audit log)'),
  ).action((version: string, opts: ClientOptions & { from: string; internal?: boolean; reason?: string }) =>
    run(async () => {
      const q = opts.reason ? `?reason=${encodeURIComponent(opts.reason)}` : '';
      const r = await call(
        opts,
        'DELETE',
        `${channelPath(opts.from, opts.internal)}/versions/${encodeURIComponent(version)}${q}`,
      );
      if (opts.output === 'json') print(opts, r, [], []);
      else process.stdout.write(`${version} withdrawn from ${opts.from}\n`);
      return 0;
    })(),
  );

  const risk = program.command('risk').description('declare and withdraw risks (blocked edges)');
  client(
    risk
      .command('add')
      .description('declare risks or hard blocks from blocked-edges files (YAML or JSON; the id is the file name)')
      .argument('<file...>'),
  ).action((files: string[], opts: ClientOptions) =>
    run(async () => {
      const { parse: parseYaml } = await import('yaml');
      const added = [];
      for (const f of files) {
        const doc = parseYaml(readFileSync(f, 'utf8'), { maxAliasCount: 100 }) as Record<string, unknown>;
        added.push(
          (await call(opts, 'POST', '/api/v1/risks', {
            id: basename(f).replace(/\.(ya?ml|json)$/, ''),
            ...doc,
          })) as Record<string, unknown>,
        );
      }
      print(opts, added, added.map(riskRow), ['id', 'to', 'from', 'name']);
      return 0;
    })(),
  );
  client(
    risk.command('rm').description('withdraw a risk or hard block').argument('<id>').option('--reason <text>'),
  ).action((id: string, opts: ClientOptions & { reason?: string }) =>
    run(async () => {
      const q = opts.reason ? `?reason=${encodeURIComponent(opts.reason)}` : '';
      const r = await call(opts, 'DELETE', `/api/v1/risks/${encodeURIComponent(id)}${q}`);
      if (opts.output === 'json') print(opts, r, [], []);
      else process.stdout.write(`${id} withdrawn\n`);
      return 0;
    })(),
  );
  client(risk.command('ls').description('list risks and hard blocks')).action((opts: ClientOptions) =>
    run(async () => {
      const risks = await listAll(opts, '/api/v1/risks', 'risks');
      print(opts, { risks }, risks.map(riskRow), ['id', 'to', 'from', 'name']);
      return 0;
    })(),
  );

  client(
    program
      .command('audit')
      .description('who changed what, newest first')
      .option('--since <time>', 'ISO time')
      .option('--actor <subject>')
      .option('--limit <n>', 'entries (newest first)', positiveInteger, 50),
  ).action((opts: ClientOptions & { since?: string; actor?: string; limit: number }) =>
    run(async () => {
      const q = new URLSearchParams();
      if (opts.since) q.set('since', opts.since);
      if (opts.actor) q.set('actor', opts.actor);
      const entries = await listAll(opts, '/api/v1/audit', 'entries', q, opts.limit);
      print(opts, { entries }, entries, ['at', 'actor', 'action', 'target', 'reason']);
      return 0;
    })(),
  );
}

const riskRow = (r: Record<string, unknown>): Record<string, unknown> => ({
  id: r.id,
  to: r.to,
  from: r.from,
  name: (r.risk as { name?: string } | undefined)?.name ?? '(hard block)',
});
