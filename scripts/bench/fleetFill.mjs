// Fills a store with clusters for the fleet-reads bench (fleetReads.mjs), with cincy's own poll recorder
// (from dist/): `node fleetFill.mjs DB CLUSTERS VERSIONS_BY_CHANNEL_JSON`. The clusters are spread over
// the channels and their versions; one in thirty is on a version of another channel (stranded, mostly);
// then a tenth moves to the newest version of its channel, as the updates the fleet saw.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [db, clustersArg, byChannelJson] = process.argv.slice(2);
const clusters = Number(clustersArg);
const byChannel = new Map(Object.entries(JSON.parse(byChannelJson)));
const all = [...new Set([...byChannel.values()].flat())].sort();
const hex = (n, width) => n.toString(16).padStart(width, '0');
const idOf = (i) => `${hex(i, 8)}-0000-4000-8000-${hex(i, 12)}`;

const dist = join(import.meta.dirname, '..', '..', 'dist');
const { Store } = await import(pathToFileURL(join(dist, 'store', 'store.js')).href);
const { PollRecorder, DEFAULT_FLEET_SETTINGS } = await import(
  pathToFileURL(join(dist, 'app', 'fleet', 'pollRecorder.js')).href
);
const { systemClock } = await import(pathToFileURL(join(dist, 'clock.js')).href);
const store = await Store.open(db, { clock: systemClock });
const recorder = new PollRecorder(store, systemClock, { ...DEFAULT_FLEET_SETTINGS, maxPending: clusters });
const pairs = [...byChannel].flatMap(([channel, versions]) => versions.map((v) => [channel, v]));
const at = Date.now() - 3_600_000;
for (let i = 0; i < clusters; i++) {
  const [channel, version] = pairs[i % pairs.length];
  recorder.take(idOf(i), i % 30 === 0 ? all[i % all.length] : version, channel, 'amd64', at);
}
await recorder.flush();
for (let i = 1; i < clusters; i += 10) {
  const [channel] = pairs[i % pairs.length];
  recorder.take(idOf(i), byChannel.get(channel).at(-1), channel, 'amd64', Date.now());
}
await recorder.flush();
await store.close();
