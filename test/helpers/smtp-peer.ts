import { SMTPServer } from 'smtp-server';

/** A message an SMTP peer accepted, decoded enough to compare with what the outbox holds. */
export interface Received {
  /** The envelope. */
  from: string;
  to: string[];
  /** Unfolded headers, names lower-cased. */
  headers: Record<string, string>;
  /** The body, decoded, with LF line ends. */
  text: string;
}

/** What the peer does besides accepting: refuse some recipients, hold one message forever. */
export interface PeerBehaviour {
  /** Recipients refused with `550 5.1.1 no such user`. */
  refuse?: (address: string) => boolean;
  /** Receives the first message's data but never answers it (a stalled server). */
  stallFirst?: boolean;
  /** Waits this long before accepting each message (so that sends overlap). */
  delayMs?: number;
}

/** A real SMTP server on loopback (smtp-server): AUTH PLAIN/LOGIN required, no TLS. */
export interface SmtpPeer {
  port: number;
  received: Received[];
  /** Every RCPT TO it was sent, refused or not. */
  recipients: string[];
  /** Each AUTH attempt's user and whether it was accepted. */
  logins: { user: string; ok: boolean }[];
  /** Messages whose data arrived (the stalled one included). */
  dataStarted: number;
  close(): Promise<void>;
}

export const PEER_USER = 'plat@example.test';
export const PEER_PASSWORD = 'S3cret pass:w/rd@%+';

/** Starts the peer on `port` (0: any free one). */
export async function startSmtpPeer(port = 0, behaviour: PeerBehaviour = {}): Promise<SmtpPeer> {
  const received: Received[] = [];
  const recipients: string[] = [];
  const logins: SmtpPeer['logins'] = [];
  let dataStarted = 0;
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: false,
    disableReverseLookup: true,
    logger: false,
    closeTimeout: 100,
    onAuth(auth, _session, callback) {
      const ok = auth.username === PEER_USER && auth.password === PEER_PASSWORD;
      logins.push({ user: auth.username ?? '', ok });
      if (!ok) callback(Object.assign(new Error('Authentication credentials invalid'), { responseCode: 535 }));
      else callback(null, { user: auth.username });
    },
    onRcptTo(address, _session, callback) {
      recipients.push(address.address);
      if (behaviour.refuse?.(address.address)) {
        callback(Object.assign(new Error('5.1.1 no such user'), { responseCode: 550 }));
      } else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        dataStarted++;
        if (behaviour.stallFirst && dataStarted === 1) return; // never answered
        const accept = () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            ...parseMessage(Buffer.concat(chunks).toString('utf8')),
          });
          callback();
        };
        if (behaviour.delayMs) setTimeout(accept, behaviour.delayMs);
        else accept();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  server.on('error', () => {}); // a client cut off mid-command
  const address = server.server.address() as { port: number };
  return {
    port: address.port,
    received,
    recipients,
    logins,
    get dataStarted() {
      return dataStarted;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Headers (unfolded) and the body (quoted-printable or base64 decoded) of a single-part message. */
function parseMessage(raw: string): { headers: Record<string, string>; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const headers: Record<string, string> = {};
  for (const line of raw
    .slice(0, split)
    .replace(/\r\n[ \t]+/g, ' ')
    .split('\r\n')) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.slice(split + 4);
  const encoding = headers['content-transfer-encoding']?.toLowerCase();
  if (encoding === 'quoted-printable') {
    const bytes = body
      .replace(/=\r\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    body = Buffer.from(bytes, 'latin1').toString('utf8');
  } else if (encoding === 'base64') {
    body = Buffer.from(body, 'base64').toString('utf8');
  }
  return { headers, text: body.replace(/\r\n/g, '\n') };
}

/** Waits until `check` holds (checked every 10 ms), failing with `what` after `timeoutMs`. */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
