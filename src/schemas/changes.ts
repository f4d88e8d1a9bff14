// Graph history's query and answer (GET /api/v1/changes): the changes of the served graph, newest first.
import { Type, type Static } from '#typebox';
import { CHANGE_KINDS } from '../history/change.js';
import { ARCH_PATTERN, CHANNEL_PATTERN } from './cincinnati.js';
import { NextCursor, PageParams } from './pagination.js';

const Time = (description: string): ReturnType<typeof Type.String> =>
  Type.String({ format: 'date-time', maxLength: 40, description, examples: ['2026-01-31T00:00:00Z'] });

export const ChangesQuery = Type.Object(
  {
    ...PageParams,
    channel: Type.Optional(Type.String({ pattern: CHANNEL_PATTERN, maxLength: 100, description: 'Only this channel' })),
    arch: Type.Optional(Type.String({ pattern: ARCH_PATTERN, maxLength: 40, description: 'Only this arch' })),
    since: Type.Optional(Time('Only changes at or after this time (ISO 8601)')),
    until: Type.Optional(Time('Only changes before this time (ISO 8601)')),
    kind: Type.Optional(
      Type.String({
        pattern: `^(${CHANGE_KINDS.join('|')})(,(${CHANGE_KINDS.join('|')}))*$`,
        maxLength: 400,
        description: `Only these kinds, comma-separated: ${CHANGE_KINDS.join(', ')}`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const ChangeItem = Type.Object({
  id: Type.Integer({ description: 'Increases with every change recorded' }),
  kind: Type.Union(CHANGE_KINDS.map((k) => Type.Literal(k))),
  at: Type.String({ description: 'When the served graph changed (ISO 8601)' }),
  channel: Type.Optional(Type.String()),
  arch: Type.Optional(Type.String()),
  from: Type.Optional(Type.String()),
  to: Type.Optional(Type.String()),
  version: Type.Optional(Type.String()),
  risk: Type.Optional(Type.String()),
  cause: Type.Optional(
    Type.String({
      description:
        'release, promotion, tombstone, withdrawal, blocked-edge, risk or metadata (see docs/user/changes.md)',
    }),
  ),
  actor: Type.Optional(Type.String({ description: "For a change an admin write made: the token's subject" })),
  detail: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type ChangeItem = Static<typeof ChangeItem>;

export const Changes = Type.Object({ changes: Type.Array(ChangeItem), nextCursor: NextCursor });
export type Changes = Static<typeof Changes>;
