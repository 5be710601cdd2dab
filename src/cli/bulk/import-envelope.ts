const BLANK = new Set([' ', '\t', '\r', '\n']);

/** What a character outside the array meant: the array opens, the object closes, or the object is not one. */
export type EnvelopeStep = 'array' | 'closed' | { problem: string } | undefined;

/**
 * The object around an array of users — `{"users": [ … ]}`, as `firebase auth:export` writes it, or `{"Users": [ … ]}`
 * as `aws cognito-idp list-users` prints it — read a character at a time outside the array: it says where the array
 * named `member` opens, skips the object's other members (before or after it) whatever they hold, and where the object
 * closes. The array's elements are read by import-json.ts as any array's. Nothing is kept but the member name being
 * read (so a large other member costs no memory).
 */
export class Envelope {
  private state: 'open' | 'key' | 'name' | 'colon' | 'value' | 'skip' | 'rest' | 'closed' = 'open';
  private name = '';
  private found = false;
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(readonly member: string) {}

  /** The object as messages show it. */
  get shape(): string {
    return `{"${this.member}": [ … ]}`;
  }

  /** Takes the next character outside the array. */
  take(c: string): EnvelopeStep {
    switch (this.state) {
      case 'open':
        if (BLANK.has(c)) return undefined;
        if (c === '{') return this.to('key');
        return { problem: `not a JSON object: expected ${this.shape}` };
      case 'key':
        if (BLANK.has(c)) return undefined;
        if (c === '"') {
          this.name = '';
          return this.to('name');
        }
        if (c === '}') return this.close();
        return { problem: `expected a member name in the object ${this.shape}` };
      case 'name':
        return this.nameChar(c);
      case 'colon':
        if (BLANK.has(c)) return undefined;
        if (c === ':') return this.to('value');
        return { problem: `expected : after a member name in the object ${this.shape}` };
      case 'value':
        if (BLANK.has(c)) return undefined;
        if (this.name === this.member && !this.found) {
          if (c !== '[') return { problem: `"${this.member}" is not an array` };
          this.found = true;
          return 'array';
        }
        [this.state, this.depth, this.inString, this.escaped] = ['skip', 0, false, false];
        return this.skip(c);
      case 'skip':
        return this.skip(c);
      case 'rest':
        if (BLANK.has(c)) return undefined;
        if (c === ',') return this.to('key');
        if (c === '}') return this.close();
        return { problem: `expected , or } after the "${this.member}" array` };
      case 'closed':
        return BLANK.has(c) ? undefined : { problem: 'text after the end of the JSON object' };
    }
  }

  /** The array's `]` was read: the object's other members, or its end, follow. */
  arrayClosed(): void {
    this.state = 'rest';
  }

  /** Whether the object was read to its end. */
  get complete(): boolean {
    return this.state === 'closed';
  }

  /** Why the input cannot have ended here (when not {@link complete}). */
  get endProblem(): string {
    if (this.state === 'open') return `the file is empty: expected ${this.shape}`;
    if (!this.found) return `no "${this.member}" array in the object`;
    return 'the JSON object is never closed';
  }

  private to(state: Envelope['state']): undefined {
    this.state = state;
    return undefined;
  }

  /** A character of a member's name: only as much as could still be `member` is kept. */
  private nameChar(c: string): EnvelopeStep {
    if (this.escaped) this.escaped = false;
    else if (c === '\\') this.escaped = true;
    else if (c === '"') return this.to('colon');
    if (this.name.length <= this.member.length) this.name += c;
    return undefined;
  }

  /** A character of another member's value, skipped: it ends at a `,` or the object's `}` outside strings and nesting. */
  private skip(c: string): EnvelopeStep {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (c === '\\') this.escaped = true;
      else if (c === '"') this.inString = false;
    } else if (c === '"') this.inString = true;
    else if (c === '{' || c === '[') this.depth++;
    else if (c === '}' || c === ']') {
      if (this.depth > 0) this.depth--;
      else if (c === '}') return this.close();
      else return { problem: `an unmatched ] in the object ${this.shape}` };
    } else if (c === ',' && this.depth === 0) return this.to('key');
    return undefined;
  }

  private close(): EnvelopeStep {
    if (!this.found) return { problem: `no "${this.member}" array in the object` };
    this.state = 'closed';
    return 'closed';
  }
}
