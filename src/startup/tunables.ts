// glibc's tunables for a start from the snapshot: the launcher (src/startup/launcher.sh) puts its own first in
// GLIBC_TUNABLES — huge pages for glibc's large allocations, the blob read whole at each start among them — and the
// snapshot's main gives the variable back the value the user had, so that nothing plat starts inherits the launcher's.

/** What the launcher puts first in `GLIBC_TUNABLES` (launcher.sh spells it too; a test keeps the two the same). */
export const LAUNCHER_TUNABLES = 'glibc.malloc.hugetlb=1';

/**
 * `GLIBC_TUNABLES` as the user had it, from its value in a process the launcher started: undefined when they had
 * none (or an empty one). A value the launcher did not make is the user's, and is kept as it is.
 */
export function usersTunables(value: string | undefined): string | undefined {
  if (value === LAUNCHER_TUNABLES) return undefined;
  if (value?.startsWith(`${LAUNCHER_TUNABLES}:`)) return value.slice(LAUNCHER_TUNABLES.length + 1) || undefined;
  return value;
}
