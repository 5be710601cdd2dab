import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens; repeats numbered -1, -2… */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, text] of prose(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = (text as string)
      .replace(/<[^>]+>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, '')
      .replaceAll(' ', '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  }
  return found;
}

/** Every inline link and image target (`[text](target)`, `![alt](target)`) and reference definition (`[x]: target`). */
function targets(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] as string);
  const defined = [...text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1] as string);
  return [...inline, ...defined];
}

it('every relative link in README.md and docs/ names a file of the repository, and a heading of it', () => {
  const broken: string[] = [];
  for (const page of pages) {
    const markdown = readFileSync(join(root, page), 'utf8');
    for (const target of targets(markdown)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? join(root, page) : resolve(root, dirname(page), decodeURIComponent(path));
      if (relative(root, file).startsWith('..') || !existsSync(file)) {
        broken.push(`${page}: ${target} (no such file in the repository)`);
      } else if (anchor !== undefined && file.endsWith('.md') && statSync(file).isFile()) {
        if (!anchors(readFileSync(file, 'utf8')).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
      }
    }
  }
  expect(broken).toEqual([]);
});
