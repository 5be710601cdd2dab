import type { List, PagingQuery } from '../../contract/common.js';
import { PER_PAGE_MAX } from '../../contract/limits.js';

/**
 * Every page of a list, the largest the API gives (fewest round trips), in cursor mode: the first with `first`'s
 * filters, the next with the cursor, which carries them; `every` (what shapes the records, such as `expand`) goes with
 * each. Falls back to page numbers if the server answers in offset mode, as the client's `all` does.
 */
export async function* pagesOf<T, Q extends PagingQuery>(
  list: (query: Q) => Promise<List<T>>,
  first: Omit<Q, keyof PagingQuery>,
  every: Partial<Q> = {},
): AsyncGenerator<T[]> {
  let query = { ...first, ...every, limit: PER_PAGE_MAX } as Q;
  for (;;) {
    const { data, pagination } = await list(query);
    yield data;
    if (!pagination.hasMore) return;
    if ('nextCursor' in pagination) {
      if (!pagination.nextCursor) return;
      query = { ...every, cursor: pagination.nextCursor, limit: PER_PAGE_MAX } as Q;
    } else {
      query = { ...first, ...every, page: pagination.page + 1, per_page: pagination.perPage } as Q;
    }
  }
}
