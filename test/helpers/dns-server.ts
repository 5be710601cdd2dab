import dns2 from 'dns2';

const { Packet } = dns2;
/** The response codes dns2 defines (RFC 1035 §4.1.1) but its types leave out. */
const RCODE = { SERVFAIL: 2, NXDOMAIN: 3 } as const;

/**
 * A real DNS server on loopback (dns2, over UDP), publishing the TXT records a test sets: what `plat serve
 * --dns-server` and `PLAT_DNS_SERVER` point domain verification at. A name without records answers NXDOMAIN; one set to
 * `'servfail'` answers SERVFAIL; one set to `'silent'` never answers (a timeout).
 */
export interface TestDnsServer {
  /** `127.0.0.1:PORT`, as `--dns-server` takes it. */
  address: string;
  /** Publishes these TXT records at `name` (each record one string, or its character-strings), replacing any. */
  txt(name: string, records: readonly (string | readonly string[])[] | 'servfail' | 'silent'): void;
  /** Removes every record of `name`. */
  clear(name: string): void;
  /** How many questions each name was asked, lower case. */
  asked: Map<string, number>;
  close(): Promise<void>;
}

export async function startDnsServer(): Promise<TestDnsServer> {
  const zone = new Map<string, readonly (string | readonly string[])[] | 'servfail' | 'silent'>();
  const asked = new Map<string, number>();
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const name = (question?.name ?? '').toLowerCase();
      asked.set(name, (asked.get(name) ?? 0) + 1);
      const records = zone.get(name);
      if (records === 'silent') return;
      if (records === 'servfail') {
        response.header.rcode = RCODE.SERVFAIL;
      } else if (records === undefined) {
        response.header.rcode = RCODE.NXDOMAIN;
      } else if (question?.type === Packet.TYPE.TXT) {
        for (const data of records) {
          const answer = { name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 60, data };
          response.answers.push(answer as unknown as (typeof response.answers)[number]);
        }
      }
      send(response);
    },
  });
  await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const { port } = (server.addresses() as { udp: { port: number } }).udp;
  return {
    address: `127.0.0.1:${port}`,
    txt: (name, records) => {
      zone.set(name.toLowerCase(), records);
    },
    clear: (name) => {
      zone.delete(name.toLowerCase());
    },
    asked,
    close: () => server.close(),
  };
}
