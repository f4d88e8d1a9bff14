// The reads of GET /api/v1/changes: graph history as the store holds it (every replica's), a page at
// a time, newest first.
import type { Static } from '#typebox';
import { ApiError } from '../../errors.js';
import { DEFAULT_PAGE_LIMIT } from '../../pageLimits.js';
import type { Changes, ChangesQuery } from '../../schemas/changes.js';
import type { Store } from '../../store/store.js';
import { StoreUnavailable } from '../../store/sql.js';
import { decodeCursor, encodeCursor } from '../admin/pagination.js';
import type { ChangeKind } from '../../history/change.js';

export async function listChanges(store: Store, q: Static<typeof ChangesQuery>): Promise<Static<typeof Changes>> {
  const since = q.since && new Date(q.since).toISOString();
  const until = q.until && new Date(q.until).toISOString();
  if (since && until && since > until)
    throw new ApiError('invalid_params', `querystring.until: ${q.until} is before since ${q.since}`);
  const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
  const before = q.cursor ? decodeCursor<[number]>('changes', q.cursor, ['number'])[0] : undefined;
  let rows;
  try {
    rows = await store.read((tx) =>
      tx.history.list({
        channel: q.channel,
        arch: q.arch,
        kinds: q.kind?.split(',') as ChangeKind[] | undefined,
        since,
        until,
        before,
        limit: limit + 1,
      }),
    );
  } catch (err) {
    if (err instanceof StoreUnavailable) throw new ApiError('service_unavailable', err.message);
    throw err;
  }
  const page = rows.slice(0, limit);
  const more = rows.length > limit;
  return { changes: page, ...(more && { nextCursor: encodeCursor('changes', [page[page.length - 1]!.id]) }) };
}
