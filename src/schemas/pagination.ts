// The pagination of every admin list: `limit` and `cursor` in the query, `nextCursor` in the answer.
import { Type } from '#typebox';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '../pageLimits.js';

/** The query parameters of a paginated list, to spread into its querystring schema. */
export const PageParams = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_LIMIT,
      default: DEFAULT_PAGE_LIMIT,
      description: 'at most this many items in the page',
    }),
  ),
  cursor: Type.Optional(
    Type.String({ maxLength: 512, description: 'where the page starts: the nextCursor of the previous page' }),
  ),
};
export const PageQuery = Type.Object(PageParams);

/** The field of a paginated answer that says there is more. */
export const NextCursor = Type.Optional(
  Type.String({ description: 'present while there is more: pass it as cursor for the next page (opaque)' }),
);
