import type { Command } from 'commander';
import type { Query } from '../client/client.js';
import type { List } from '../contract/common.js';
import { PAGE_MAX, PER_PAGE_DEFAULT, PER_PAGE_MAX } from '../contract/limits.js';
import type { Context } from './context.js';
import { list as listOf, type Output } from './output/result.js';
import type { View } from './output/view.js';
import { intBetween } from './parse.js';

/** The paging options every paginated list verb takes. */
export interface PageOptions {
  page?: number;
  perPage?: number;
  limit?: number;
  all?: boolean;
}

/**
 * Adds `--page --per-page --limit --all` (offset paging unless `--limit`, which selects cursor paging). A page size
 * outside the contract's 1–100, or page 0, is refused here (exit 7, as the API would) rather than sent.
 */
export function pagingOptions(cmd: Command, opts: { offset?: boolean } = { offset: true }): void {
  const pageSize = intBetween(1, PER_PAGE_MAX, { platform: true });
  if (opts.offset) {
    cmd.option('--page <n>', 'page number (offset paging)', intBetween(1, PAGE_MAX, { platform: true }));
    cmd.option('--per-page <n>', `records per page, at most ${PER_PAGE_MAX}`, pageSize);
  }
  cmd.option('--limit <n>', `records per page in cursor paging, at most ${PER_PAGE_MAX}`, pageSize);
  cmd.option('--all', 'fetch every page');
}

/** Reads the paging options from commander's values. */
export function pageOptions(raw: Record<string, unknown>): PageOptions {
  return {
    page: raw.page as number | undefined,
    perPage: raw.perPage as number | undefined,
    limit: raw.limit as number | undefined,
    all: raw.all === true,
  };
}

/**
 * The API's paging query for these options: offset paging when a page or a page size is asked for, and otherwise
 * cursor paging — the same first records in the same order, without the total that offset paging makes the server
 * count over the whole list (all of an organization's users, say), which plat never shows.
 */
export function pageQuery(o: PageOptions): Query {
  if (o.page !== undefined || o.perPage !== undefined) return { page: o.page, per_page: o.perPage, limit: o.limit };
  return { limit: o.limit ?? PER_PAGE_DEFAULT };
}

/**
 * A list verb's output: one page through the resource's typed method, or with `--all` every page of it through the
 * client's page walker (`pages`), each written as it arrives (so `| head` stops the walk), drawing a running count on
 * stderr when it is a terminal. One page of several carries the note that says so (`moreNote`), which the renderer
 * shows under a table on a terminal.
 */
export async function fetchList<T>(
  ctx: Context,
  o: PageOptions,
  // `q` is built from options already checked against the contract's enums, so it is typed loosely here.
  list: {
    first: (q: any) => Promise<List<T>>;
    query: Query;
    what: string;
    view: View;
  },
): Promise<Output> {
  if (!o.all) {
    const page = await list.first({ ...list.query, ...pageQuery(o) });
    return listOf(page.data, list.view, moreNote(page, list.what));
  }
  const draw = ctx.io.stderrTty && !ctx.globals().quiet;
  // Imported here, as the client is everywhere in a command: `plat <noun> --help` loads none of it.
  const { pages } = await import('../client/client.js');
  async function* counted(): AsyncGenerator<unknown[]> {
    let count = 0;
    try {
      for await (const page of pages(list.first, { ...list.query, limit: o.limit })) {
        count += page.length;
        if (draw) ctx.io.stderr.write(`\rFetched ${count} ${list.what}…`);
        yield page;
      }
    } finally {
      if (draw) ctx.io.stderr.write('\r\x1b[K');
    }
  }
  return { kind: 'pages', pages: counted(), view: list.view };
}

/**
 * What a page leaves out, when it does: how many it shows of how many, and how to see the rest (as gh says it).
 * A cursor page knows no total (plat's default first page is one, so the server counts nothing).
 */
export function moreNote(page: List<unknown>, what: string): string | undefined {
  const p = page.pagination;
  if (!p?.hasMore) return undefined;
  const n = page.data.length;
  if (!('total' in p)) {
    const shown = n === 1 ? `the first ${what.replace(/s$/, '')}` : `the first ${n} ${what}`;
    return `Showing ${shown}; there are more: --all lists every one`;
  }
  const where = p.page > 1 ? ` (page ${p.page} of ${p.totalPages})` : '';
  const size = p.perPage === PER_PAGE_DEFAULT ? '' : ` --per-page ${p.perPage}`;
  return `Showing ${n} of ${p.total} ${what}${where}; use --all to list every one, or --page ${p.page + 1}${size} for the next`;
}
