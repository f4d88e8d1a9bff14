// The webhooks API's requests and answers (/api/v1/webhooks…). The service checks what the types
// cannot (the URL's scheme, the kinds, the secret's length), naming the field of each problem.
import { Type } from '#typebox';
import { CHANGE_KINDS } from '../history/change.js';

export const WebhookCreate = Type.Object(
  {
    url: Type.String({ maxLength: 2048, description: 'Where deliveries are POSTed (http or https)' }),
    kinds: Type.Array(Type.String({ maxLength: 40 }), {
      maxItems: 20,
      description: `The kinds of change wanted, among: ${CHANGE_KINDS.join(', ')}`,
    }),
    secret: Type.String({
      maxLength: 256,
      description: 'The key of the HMAC-SHA256 signature of each delivery (16 to 256 characters); never shown again',
    }),
    channel: Type.Optional(Type.String({ maxLength: 100, description: 'Only changes of this channel' })),
    arch: Type.Optional(Type.String({ maxLength: 100, description: 'Only changes of this arch' })),
  },
  { additionalProperties: false },
);

export const Webhook = Type.Object({
  id: Type.String(),
  url: Type.String(),
  kinds: Type.Array(Type.String()),
  channel: Type.Optional(Type.String()),
  arch: Type.Optional(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  createdBy: Type.String(),
  deliveries: Type.Object(
    {
      pending: Type.Integer({ description: 'Queued, not delivered yet (retried with backoff)' }),
      failed: Type.Integer({ description: 'Given up on after 3 days of attempts' }),
      delivered: Type.Integer({ description: 'Acknowledged in the last 7 days' }),
      lastDeliveredAt: Type.Optional(Type.String({ format: 'date-time' })),
      lastError: Type.Optional(Type.String({ description: 'Why the last failed attempt failed' })),
    },
    { description: 'The outbox of this webhook in numbers' },
  ),
});

export const WebhookList = Type.Object({ webhooks: Type.Array(Webhook) });
export const WebhookParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
export const WebhookPing = Type.Object({
  eventId: Type.String({ description: 'X-Cincy-Event-Id of the ping queued' }),
});
