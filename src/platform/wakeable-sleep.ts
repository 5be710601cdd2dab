/** A sleep that `wake()` ends early: what a background loop waits on between two looks at its work. */
export function wakeableSleep(): { sleep(ms: number): Promise<void>; wake(): void } {
  let wake = () => {};
  return {
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      }),
    wake: () => wake(),
  };
}
