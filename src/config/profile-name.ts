/** What a profile may be called: letters, digits, `_ . -`, starting with a letter or a digit, at most 64 characters. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * A name for the profile of a server, from its URL: the host, then the port when the URL names one
 * (`http://127.0.0.1:8081/v2` → `127.0.0.1-8081`, `https://api.example.com/v2` → `api.example.com`), with `-2`,
 * `-3`… added while `taken` says the name is in use. Always a valid profile name.
 */
export function profileNameFor(baseUrl: string, taken: (name: string) => boolean): string {
  const url = new URL(baseUrl);
  // An IPv6 literal keeps its digits, not its brackets and colons: http://[::1]:8080 → ipv6-1-8080.
  const host = url.hostname.startsWith('[')
    ? `ipv6-${url.hostname.slice(1, -1).split(':').filter(Boolean).join('-')}`
    : url.hostname;
  const base =
    (url.port ? `${host}-${url.port}` : host)
      .replace(/[^A-Za-z0-9_.-]+/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      // Room for a `-NN` suffix within the 64 characters.
      .slice(0, 56)
      .replace(/[-_.]+$/, '') || 'server';
  let name = base;
  for (let n = 2; taken(name); n++) name = `${base}-${n}`;
  return name;
}
