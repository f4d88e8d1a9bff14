// Queues webhook deliveries as a producer of changes does: `node enqueueChanges.mjs <db> <changes.json>`
// opens the store (a SQLite file or a postgres:// URL), hands the changes to the webhook ChangeSink in
// one write transaction (each as a write's changes of its own, so each is an event), and exits once it committed. It uses the built CLI (dist/), as the e2e tests'
// serve processes do.
import { readFileSync } from 'node:fs';
import { systemClock } from '../../dist/clock.js';
import { webhookSink } from '../../dist/app/webhooks/outbox.js';
import { Store } from '../../dist/store/store.js';

const [db, file] = process.argv.slice(2);
if (!db || !file) {
  process.stderr.write('usage: node enqueueChanges.mjs <db> <changes.json>\n');
  process.exit(2);
}
const changes = JSON.parse(readFileSync(file, 'utf8'));
const store = await Store.open(db);
const sink = webhookSink(systemClock);
// Each change as the change of a write of its own: one event each, in one transaction.
await store.write(async (tx) => {
  for (const change of changes) await sink(tx, [change]);
});
await store.close();
