/**
 * Starts timing an attempt; the returned function gives the milliseconds since, to a tenth (as `--verbose` shows
 * them). Read from `process.hrtime`, monotonic like `performance.now()`, which would load Node's perf_hooks modules
 * into every start (the startup snapshot included) for one subtraction.
 */
export function stopwatch(): () => number {
  const started = process.hrtime.bigint();
  return () => Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
}
