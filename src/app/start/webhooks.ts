// The webhooks step: the delivery loop (started with the first graph, unless deliveries are only
// queued) and the service the API and the change sinks use. Every change graph history and the fleet
// alerts record is queued for the webhooks that want it, in the transaction that records it.
import type { Clock } from '../../clock.js';
import type { Log } from '../../log.js';
import type { ChangeSink } from '../../store/changeSink.js';
import type { Store } from '../../store/store.js';
import { DeliveryLoop, DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from '../webhooks/delivery.js';
import { Webhooks } from '../webhooks/service.js';

export type WebhookStepSettings = Partial<WebhookSettings> & {
  /** false: deliveries are queued, never sent (default: sent). */
  deliver?: boolean;
};

export function webhookParts(
  store: Store,
  clock: Clock,
  options: { settings?: WebhookStepSettings; log: Log; sinks: ChangeSink[] },
): Webhooks {
  const delivery = new DeliveryLoop(store, clock, { ...DEFAULT_WEBHOOK_SETTINGS, ...options.settings }, options.log);
  const webhooks = new Webhooks(store, clock, delivery);
  options.sinks.push(webhooks.sink);
  return webhooks;
}
