import type { Server, ServerOptions } from 'node:http';

/** How long a client may take over a request, and how many connections the listener holds (docs/api.md). */
export interface ServerLimits {
  /** The request line and headers must be complete within this time (docs/api.md, "Bounds on what clients send": 20 s). */
  headersTimeoutMs: number;
  /** The whole request, body included, must be complete within this time (docs/api.md, "Bounds on what clients send": 60 s). */
  requestTimeoutMs: number;
  /**
   * How often the two timeouts above are checked: a connection past one is answered `408` and closed at most this
   * long after (docs/api.md, "Bounds on what clients send": 10 s).
   */
  checkIntervalMs: number;
  /** An idle keep-alive connection is closed after this long without a new request. */
  keepAliveTimeoutMs: number;
  /** Connections held at once; one more is closed as soon as it is accepted, without an answer. */
  maxConnections: number;
  /**
   * Connections held at once from one client address (trusted proxies exempt), so that one address cannot hold them
   * all; one more from it is closed as soon as it is accepted.
   */
  maxConnectionsPerAddress: number;
}

/**
 * The defaults. 256 connections, 32 from one address: each may hold a request body of up to 1 MiB while it is read,
 * so a full listener holds at most a quarter of a gigabyte of bodies, and stays well below the 1,024 open files a
 * process commonly gets (past that limit, accepting fails for everyone).
 */
export const SERVER_LIMITS: Readonly<ServerLimits> = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 60_000,
  checkIntervalMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 256,
  maxConnectionsPerAddress: 32,
};

/** The defaults with `overrides` (tests shorten the timeouts; `plat serve --max-connections` sets the cap). */
export function serverLimits(overrides: Partial<ServerLimits> = {}): ServerLimits {
  const limits = { ...SERVER_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new RangeError('headersTimeoutMs cannot exceed requestTimeoutMs');
  }
  return limits;
}

/** The options of `http.createServer` that carry the timeouts (the checking interval can only be set there). */
export function httpServerOptions(limits: ServerLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: limits.checkIntervalMs,
    // Answered by the listener with the error envelope instead of Node's bare 400 (listener-errors.ts).
    requireHostHeader: false,
  };
}

/** Sets what is set on the server itself rather than at its creation. */
export function applyLimits(server: Server, limits: ServerLimits): void {
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
}

/** What the listener actually runs with, read back from the server (what `RunningServer.limits` reports). */
export function appliedLimits(server: Server, limits: ServerLimits): ServerLimits {
  return {
    headersTimeoutMs: server.headersTimeout,
    requestTimeoutMs: server.requestTimeout,
    checkIntervalMs: limits.checkIntervalMs,
    keepAliveTimeoutMs: server.keepAliveTimeout,
    maxConnections: server.maxConnections,
    maxConnectionsPerAddress: limits.maxConnectionsPerAddress,
  };
}
