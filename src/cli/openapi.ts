// `cincy openapi`: the generated OpenAPI document, as /openapi serves it (openapi/openapi.json is this output).
// Every route's validator and serializer is compiled first (a server compiles them on first use), so a
// schema that does not compile fails the command rather than the first request that needs it.
import { buildApp } from '../server/app.js';
import { compileAllPending } from '../server/lazyCompile.js';
import { createAdminServices } from '../app/admin/services.js';
import { GraphService } from '../app/graphService.js';
import { Store } from '../store/store.js';
import { systemClock } from '../clock.js';
import { DeliveryLoop, DEFAULT_WEBHOOK_SETTINGS } from '../app/webhooks/delivery.js';
import { Webhooks } from '../app/webhooks/service.js';

export async function openapiCommand(): Promise<number> {
  const store = Store.at(':memory:');
  const service = new GraphService(store);
  // The delivery loop is never started: only the routes are wanted.
  const quiet = { info: () => {}, warn: () => {} };
  const webhooks = new Webhooks(
    store,
    systemClock,
    new DeliveryLoop(store, systemClock, DEFAULT_WEBHOOK_SETTINGS, quiet),
  );
  const app = await buildApp({ service, admin: createAdminServices(store, service), webhooks });
  await app.ready();
  compileAllPending();
  const served = await app.inject({ method: 'GET', url: '/openapi' });
  if (served.statusCode !== 200) throw new Error(`/openapi answered ${served.statusCode}: ${served.body}`);
  process.stdout.write(`${JSON.stringify(served.json(), null, 2)}\n`);
  await app.close();
  await webhooks.delivery.close();
  await store.close();
  return 0;
}
