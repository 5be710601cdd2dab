import { InvalidArgumentError } from 'commander';
import { EXIT_CODES, InvalidValueError, UsageError } from './errors.js';

/**
 * commander's refusal of a well-formed value the platform does not take (`--per-page 1000`): exit 7, as the API's 422
 * would be. A malformed one (`--per-page ten`), or one only the CLI limits (`--port 70000`), stays a usage error,
 * exit 2 (docs/cli.md, "Exit codes").
 */
export class RefusedArgumentError extends InvalidArgumentError {
  constructor(message: string) {
    super(message);
    this.exitCode = EXIT_CODES.invalid;
  }
}

/** commander argument parser: a whole number ≥ 0 (a malformed number is a usage error, exit 2). */
export function nonNegativeInt(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new InvalidArgumentError('expected a whole number.');
  return Number(value);
}

/** commander argument parser: a whole number ≥ 1. */
export function positiveInt(value: string): number {
  const n = nonNegativeInt(value);
  if (n < 1) throw new InvalidArgumentError('expected a whole number of at least 1.');
  return n;
}

/**
 * A commander argument parser for a whole number from `min` to `max`: a value out of range is refused with the range
 * in the message, before any command runs — exit 7 when the range is the platform's (`platform`), else 2.
 */
export function intBetween(min: number, max: number, o: { platform?: boolean } = {}): (value: string) => number {
  const Refusal = o.platform ? RefusedArgumentError : InvalidArgumentError;
  return (value) => {
    const n = nonNegativeInt(value);
    if (n < min || n > max) throw new Refusal(`expected a whole number from ${min} to ${max}.`);
    return n;
  };
}

/** commander argument parser: a TCP port, 0–65535 (0: any free port). */
export function portNumber(value: string): number {
  const n = nonNegativeInt(value);
  if (n > 65535) throw new InvalidArgumentError('expected a port number from 0 to 65535.');
  return n;
}

/** commander collector for repeatable options (`--team A --team B`). */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `KEY=VALUE` → `[KEY, VALUE]`; the value may hold `=`. A missing `=` is a usage error. */
export function keyValue(pair: string, what = 'KEY=VALUE'): [string, string] {
  const at = pair.indexOf('=');
  if (at <= 0) throw new UsageError(`expected ${what}, got "${pair}"`);
  return [pair.slice(0, at), pair.slice(at + 1)];
}

/** Checks a value the API constrains to a set; the CLI catches it first (exit 7, as the API's 422 would be). */
export function oneOf<T extends string>(value: string, allowed: readonly T[], what: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new InvalidValueError(`invalid ${what} "${value}": expected one of ${allowed.join(', ')}`);
  }
  return value as T;
}

/** A date or date-time as the API's ISO 8601 UTC timestamp; `2026-12-31` means midnight UTC. */
export function isoTimestamp(value: string, what: string): string {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms)) {
    throw new InvalidValueError(
      `invalid ${what} "${value}": expected a date such as 2026-12-31 or 2026-12-31T12:00:00Z`,
    );
  }
  return new Date(ms).toISOString();
}

/** `true`/`false` (and yes/no, on/off) for settings given on the command line. */
export function booleanValue(value: string, what: string): boolean {
  if (/^(true|yes|on|1)$/i.test(value)) return true;
  if (/^(false|no|off|0)$/i.test(value)) return false;
  throw new InvalidValueError(`invalid ${what} "${value}": expected true or false`);
}
