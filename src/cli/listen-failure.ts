import { UsageError } from './errors.js';

/** `host:port`, an IPv6 address in brackets. */
function address(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * What to tell someone whose `plat serve` could not listen, when it is something they fix with `--host` or `--port`
 * (a usage error, exit 2): the port is taken or privileged, or the host is not an address of this machine. Anything
 * else is left as it is (undefined).
 */
export function listenFailure(err: unknown, host: string, port: number): UsageError | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const where = `cannot listen on ${address(host, port)}`;
  const otherPort = 'choose another port with --port N (--port 0 picks any free one)';
  switch (code) {
    case 'EADDRINUSE':
      return new UsageError(
        `${where}: the port is already in use. Stop the program that holds it (another plat serve?), or ${otherPort}.`,
      );
    case 'EACCES':
      return new UsageError(
        `${where}: permission denied (ports below 1024 need administrator rights on most systems); ${otherPort}.`,
      );
    case 'EADDRNOTAVAIL':
      return new UsageError(
        `${where}: ${host} is not an address of this machine. Pass --host 127.0.0.1 (this machine only), ` +
          '--host 0.0.0.0 (every interface) or one of its own addresses.',
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new UsageError(
        `${where}: the host name ${host} could not be resolved. Pass --host 127.0.0.1 (this machine only), ` +
          '--host 0.0.0.0 (every interface) or one of its own addresses.',
      );
    default:
      return undefined;
  }
}
