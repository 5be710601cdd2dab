/**
 * Latin letters that are not an ASCII letter plus accents, so that decomposing them leaves nothing to fold: each is
 * written the way the languages that use it spell it in ASCII (Danish `ø` → `o`, German `ß` → `ss`, Polish `ł` → `l`…).
 */
const LETTERS: Record<string, string> = {
  æ: 'ae',
  ø: 'o',
  œ: 'oe',
  ß: 'ss',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŧ: 't',
  ŋ: 'n',
  ĸ: 'k',
};
const OTHER_LETTERS = new RegExp(`[${Object.keys(LETTERS).join('')}]`, 'g');

/**
 * A URL-safe slug (docs/api.md, "Decisions"): lower-case, accents folded to ASCII (and the letters above spelled in ASCII), runs
 * of other characters become one `-`, trimmed, at most 48 characters; `fallback` when nothing is left.
 */
export function slugify(name: string, fallback: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(OTHER_LETTERS, (c) => LETTERS[c] as string)
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/g, '');
  return slug || fallback;
}

/** The slug of `name`, made unique by a suffix `-2`, `-3`, … (the whole staying within 48 characters). */
export async function uniqueSlug(
  name: string,
  fallback: string,
  taken: (slug: string) => Promise<boolean>,
): Promise<string> {
  const base = slugify(name, fallback);
  if (!(await taken(base))) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${base.slice(0, 48 - suffix.length).replace(/-+$/g, '')}${suffix}`;
    if (!(await taken(candidate))) return candidate;
  }
}
