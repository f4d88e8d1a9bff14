// `cincy openapi`: the generated OpenAPI document, as /openapi serves it (openapi/openapi.json is this output).
import { buildApp } from '../server/app.js';
import { createAdminServices } from '../app/admin/services.js';
import { GraphService } from '../app/graphService.js';
import { Store } from '../store/store.js';

export async function openapiCommand(): Promise<number> {
  const store = Store.at(':memory:');
  const service = new GraphService(store);
  const app = await buildApp({ service, admin: createAdminServices(store, service) });
  await app.ready();
  process.stdout.write(`${JSON.stringify(app.swagger(), null, 2)}\n`);
  await app.close();
  await store.close();
  return 0;
}
