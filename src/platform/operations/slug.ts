/**
 * A URL-safe slug (contract §5): lower-case, accents folded to ASCII, runs of other characters become one `-`,
 * trimmed, at most 48 characters; `fallback` when nothing is left.
 */
export function slugify(name: string, fallback: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/g, '');
  return slug || fallback;
}

/** The slug of `name`, made unique by a suffix `-2`, `-3`, … (the whole staying within 48 characters). */
export function uniqueSlug(name: string, fallback: string, taken: (slug: string) => boolean): string {
  const base = slugify(name, fallback);
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${base.slice(0, 48 - suffix.length).replace(/-+$/g, '')}${suffix}`;
    if (!taken(candidate)) return candidate;
  }
}
