/**
 * A value the user gave, quoted for a message: in double quotes, with control and invisible characters (a bidi
 * override, a zero-width space, an escape sequence's ESC) written as escapes, so that what a message shows is what
 * was typed and a terminal runs none of it.
 */
export function quoted(value: string): string {
  return JSON.stringify(value).replace(/[\p{C}\p{Zl}\p{Zp}]/gu, escaped);
}

/** A character as a visible escape: `\u001b`. */
function escaped(c: string): string {
  const code = c.codePointAt(0) as number;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Text for a terminal that may hold what others wrote (a name in a table, an API error quoting it): the characters a
 * terminal would act on — controls (ESC, BEL, C1) and bidi overrides — written as escapes, so that none of it runs or
 * reorders what is shown. Line breaks and tabs stay (a message's detail lines).
 */
export function inert(text: string): string {
  return text.replace(/[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, (c) =>
    c === '\n' || c === '\t' ? c : escaped(c),
  );
}
