import { describe, expect, it } from 'vitest';
import { stopwatch } from '../../src/client/stopwatch.js';

describe('stopwatch (the time `--verbose` shows for each attempt)', () => {
  it('gives the milliseconds since it started, to a tenth, never going back', async () => {
    const elapsed = stopwatch();
    const first = elapsed();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const later = elapsed();
    expect(first).toBeGreaterThanOrEqual(0);
    expect(later).toBeGreaterThanOrEqual(first);
    // setTimeout waits at least its delay (less a millisecond of timer rounding); the upper bound only catches units.
    expect(later).toBeGreaterThanOrEqual(29);
    expect(later).toBeLessThan(30_000);
    expect(Number(later.toFixed(1))).toBe(later);
  });
});
