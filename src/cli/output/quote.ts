/**
 * A value the user gave, quoted for a message: in double quotes, with control and invisible characters (a bidi
 * override, a zero-width space, an escape sequence's ESC) written as escapes, so that what a message shows is what
 * was typed and a terminal runs none of it.
 */
export function quoted(value: string): string {
  return JSON.stringify(value).replace(/[\p{C}\p{Zl}\p{Zp}]/gu, (c) => {
    const code = c.codePointAt(0) as number;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
