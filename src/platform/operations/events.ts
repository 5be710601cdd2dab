import { type CursorPagination, PER_PAGE_DEFAULT } from '../../contract/common.js';
import type { Event, EventListQuery } from '../../contract/events.js';
import type { Ctx } from '../context.js';
import { resolveListing } from '../store/paging.js';

/**
 * `GET /organizations/{orgId}/events`: the audit log, newest first, in cursor mode only (an append-only log has no
 * stable page numbers). Filters: `type` (exact), `since` (inclusive; any offset, compared in UTC). A key restricted
 * to some projects reads no event about another project, as it reads no such project.
 */
export async function listEvents(
  ctx: Ctx,
  orgId: string,
  q: EventListQuery,
): Promise<{ data: Event[]; pagination: CursorPagination }> {
  const scope = `events:${orgId}`;
  const since = q.since === undefined ? undefined : new Date(q.since).toISOString();
  // A limit always given keeps resolveListing in cursor mode, also on the first page.
  const listing = resolveListing(
    ctx.cursors,
    scope,
    { cursor: q.cursor, limit: q.limit ?? PER_PAGE_DEFAULT },
    { type: q.type, since },
    {},
  );
  const { data, pagination } = await ctx.stores.events.list(
    orgId,
    listing,
    listing.filters as { type?: string; since?: string },
    ctx.principal.projectIds,
    (pos) => ctx.cursors.encode(scope, listing.filters, pos),
  );
  return { data, pagination: pagination as CursorPagination };
}
