/**
 * Starts timing an attempt; the returned function gives the milliseconds since, to a tenth (as `--verbose` shows
 * them).
 */
export function stopwatch(): () => number {
  const started = performance.now();
  return () => Math.round((performance.now() - started) * 10) / 10;
}
