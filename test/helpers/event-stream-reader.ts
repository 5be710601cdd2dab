// Reads a `text/event-stream` answer as it comes (docs/webhooks.md, "The event stream"): the raw text, and each
// block it holds (an event: `id`, `event`, `data`; a comment; the `retry` advice), so that tests can wait on them.

/** One block of the stream, as written: its fields, and its text. */
export interface SseBlock {
  /** `position`: a block with only an id (the stream's starting point), which dispatches no event. */
  kind: 'event' | 'comment' | 'retry' | 'position';
  id?: string;
  event?: string;
  /** `data`, parsed as JSON. */
  data?: any;
  text: string;
}

export interface StreamReader {
  /** Every byte so far, as text. */
  readonly text: string;
  /** Every block so far. */
  readonly blocks: SseBlock[];
  /** The events so far (blocks of kind `event`). */
  readonly events: SseBlock[];
  /** Whether the stream ended (or failed). */
  readonly ended: boolean;
  /** Why reading failed, when it did rather than end (a connection reset, a stream errored by the server). */
  readonly error: unknown;
  /** Resolves when `condition` holds (checked as each chunk arrives); rejects after `ms` (default 10 s). */
  until(condition: () => boolean, what: string, ms?: number): Promise<void>;
  /** Cancels the body: the client goes away. */
  close(): Promise<void>;
}

const decoder = () => new TextDecoder();

/** Starts reading a stream's body. */
export function readStream(body: ReadableStream<Uint8Array>): StreamReader {
  const reader = body.getReader();
  const text = decoder();
  const state = { text: '', consumed: 0, ended: false, error: undefined as unknown };
  const blocks: SseBlock[] = [];
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  const parse = () => {
    for (;;) {
      const end = state.text.indexOf('\n\n', state.consumed);
      if (end < 0) return;
      const raw = state.text.slice(state.consumed, end + 2);
      state.consumed = end + 2;
      const lines = raw.slice(0, -2).split('\n');
      if (lines.every((l) => l.startsWith(':'))) {
        blocks.push({ kind: 'comment', text: raw });
        continue;
      }
      const fields = new Map<string, string>();
      for (const line of lines) {
        const colon = line.indexOf(':');
        fields.set(line.slice(0, colon), line.slice(colon + 1).replace(/^ /, ''));
      }
      if (fields.has('retry') && fields.size === 1) {
        blocks.push({ kind: 'retry', text: raw });
        continue;
      }
      if (fields.has('id') && fields.size === 1) {
        blocks.push({ kind: 'position', id: fields.get('id'), text: raw });
        continue;
      }
      const data = fields.get('data');
      blocks.push({
        kind: 'event',
        id: fields.get('id'),
        event: fields.get('event'),
        data: data === undefined ? undefined : JSON.parse(data),
        text: raw,
      });
    }
  };
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        state.text += text.decode(value, { stream: true });
        parse();
        notify();
      }
    } catch (err) {
      state.error = err ?? new Error('the stream failed');
    }
    state.ended = true;
    notify();
  })();
  return {
    get text() {
      return state.text;
    },
    blocks,
    get events() {
      return blocks.filter((b) => b.kind === 'event');
    },
    get ended() {
      return state.ended;
    },
    get error() {
      return state.error;
    },
    until: (condition, what, ms = 10_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!condition()) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`not within ${ms} ms: ${what}; the stream so far:\n${state.text.slice(-2000)}`));
        }, ms);
        waiters.add(check);
        check();
      }),
    close: () => reader.cancel().catch(() => {}),
  };
}
