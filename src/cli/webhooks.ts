// `cincy webhooks`: a client of the webhooks API (/api/v1/webhooks…, a token with the scope
// webhooks:write). `add` subscribes a URL (the secret read from a file, never from the command line,
// where other users of the machine could see it), `ls` lists the webhooks with their deliveries in
// numbers, `rm` removes one, `ping` queues a ping event to it.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CHANGE_KINDS } from '../history/change.js';
import { call, callWithStatus, client, print, type ClientOptions } from './admin.js';

interface AddOptions extends ClientOptions {
  kinds: string;
  secretFile: string;
  channel?: string;
  arch?: string;
}

interface WebhookView {
  id: string;
  url: string;
  kinds: string[];
  channel?: string;
  arch?: string;
  deliveries: { pending: number; failed: number; delivered: number; lastDeliveredAt?: string; lastError?: string };
}

const row = (w: WebhookView): Record<string, unknown> => ({
  id: w.id,
  url: w.url,
  kinds: w.kinds.join(','),
  channel: w.channel ?? '*',
  arch: w.arch ?? '*',
  pending: w.deliveries.pending,
  failed: w.deliveries.failed,
  delivered: w.deliveries.delivered,
  'last error': w.deliveries.lastError ?? '',
});
const COLUMNS = ['id', 'url', 'kinds', 'channel', 'arch', 'pending', 'failed', 'delivered', 'last error'];

/** The secret in a file, without its final newline; an error naming --secret-file when it cannot be read. */
function readSecret(file: string): string {
  try {
    return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (err) {
    throw new Error(`--secret-file: ${(err as Error).message}`);
  }
}

export function addWebhookCommands(program: Command, run: (f: () => Promise<number>) => () => Promise<void>): void {
  const webhooks = program
    .command('webhooks')
    .description(
      'signed deliveries of changes to a URL (the server API /api/v1/webhooks, a token with webhooks:write)',
    );

  client(
    webhooks
      .command('add <url>')
      .description('subscribes a URL to kinds of change')
      .requiredOption('--kinds <kinds>', `comma-separated: ${CHANGE_KINDS.join(', ')}`)
      .requiredOption('--secret-file <file>', 'a file holding the signing secret (16 to 256 characters)')
      .option('--channel <channel>', 'only changes of this channel')
      .option('--arch <arch>', 'only changes of this arch'),
  ).action((url: string, opts: AddOptions) =>
    run(async () => {
      const body = {
        url,
        kinds: opts.kinds
          .split(',')
          .map((k) => k.trim())
          .filter(Boolean),
        secret: readSecret(opts.secretFile),
        ...(opts.channel !== undefined && { channel: opts.channel }),
        ...(opts.arch !== undefined && { arch: opts.arch }),
      };
      const created = (await call(opts, 'POST', '/api/v1/webhooks', body)) as WebhookView;
      print(opts, created, [row(created)], COLUMNS);
      return 0;
    })(),
  );

  client(webhooks.command('ls').description('the webhooks, with their deliveries in numbers')).action(
    (opts: ClientOptions) =>
      run(async () => {
        const list = (await call(opts, 'GET', '/api/v1/webhooks')) as { webhooks: WebhookView[] };
        print(opts, list, list.webhooks.map(row), COLUMNS);
        return 0;
      })(),
  );

  client(webhooks.command('rm <id>').description('removes a webhook and the deliveries it was still owed')).action(
    (id: string, opts: ClientOptions) =>
      run(async () => {
        await callWithStatus(opts, 'DELETE', `/api/v1/webhooks/${encodeURIComponent(id)}`);
        if (opts.output === 'json') print(opts, { removed: id }, [], []);
        else process.stdout.write(`removed ${id}\n`);
        return 0;
      })(),
  );

  client(webhooks.command('ping <id>').description('queues a ping event to a webhook')).action(
    (id: string, opts: ClientOptions) =>
      run(async () => {
        const ping = (await call(opts, 'POST', `/api/v1/webhooks/${encodeURIComponent(id)}/ping`)) as {
          eventId: string;
        };
        if (opts.output === 'json') print(opts, ping, [], []);
        else process.stdout.write(`queued ping ${ping.eventId}\n`);
        return 0;
      })(),
  );
}
