import type { RequestInfo } from '../client/client.js';

/**
 * One `--verbose` line per API call attempt: method, URL, status, time, request id and the rate-limit budget left.
 * The client hands over no header values or bodies, so no secret can reach this line.
 */
export function verboseLine(info: RequestInfo): string {
  const parts = [
    `${info.method} ${info.url}`,
    info.status === null ? 'no answer' : String(info.status),
    `${info.ms}ms`,
  ];
  if (info.requestId) parts.push(`request ${info.requestId}`);
  if (info.rateLimit) parts.push(`rate limit ${info.rateLimit.remaining}/${info.rateLimit.limit} left`);
  if (info.attempt > 1) parts.push(`attempt ${info.attempt}`);
  return `→ ${parts.join(' · ')}`;
}
