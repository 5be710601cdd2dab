import { ORG_ROLE_PERMISSIONS, PERMISSIONS, PROJECT_ROLE_PERMISSIONS } from '../../contract/permissions.js';
import type { RouteDef } from './route.js';

function access(route: RouteDef): string {
  if (route.access === 'public') return 'public';
  if (route.access === 'authenticated') return 'any credential';
  if (route.access === 'user') return "a user's access token";
  return `\`${route.access}\``;
}

/** The operation → permission reference, rendered as Markdown from the route table the server runs. */
export function renderReference(routes: readonly RouteDef[]): string {
  const out: string[] = [
    '# API reference: operations and permissions',
    '',
    '<!-- Generated from src/platform/http/routes by `npm run docs`; a test fails when it is stale. Do not edit. -->',
    '',
    'Every path is relative to `{base_url}` = `http(s)://HOST:PORT/v2`. Schemas of every body and record are in',
    '`GET /v2/openapi.json`, generated from the same zod schemas the server validates with.',
    '',
  ];
  const tags = [...new Set(routes.map((r) => r.tag))];
  for (const tag of tags) {
    out.push(`## ${tag}`, '', '| Method | Path | Permission | What it does |', '|---|---|---|---|');
    for (const r of routes.filter((x) => x.tag === tag)) {
      const note = r.accessNote ? ` ${r.accessNote}` : '';
      const status = r.status ? ` → \`${r.status}\`` : '';
      out.push(`| ${r.method} | \`${r.path}\` | ${access(r)} | ${r.summary}${status}.${note} |`);
    }
    out.push('');
  }
  out.push(
    '## Roles',
    '',
    'A credential holds a permission when its own restriction allows it (an API key’s `permissions`, a token’s',
    'scopes) **and** the user’s role does. Organization `member`s get project-level writes from their project role,',
    'inside that project only.',
    '',
    `| Permission | ${Object.keys(ORG_ROLE_PERMISSIONS).join(' | ')} | ${Object.keys(PROJECT_ROLE_PERMISSIONS)
      .map((r) => `project ${r}`)
      .join(' | ')} |`,
    `|---|${'---|'.repeat(Object.keys(ORG_ROLE_PERMISSIONS).length + Object.keys(PROJECT_ROLE_PERMISSIONS).length)}`,
  );
  for (const p of PERMISSIONS) {
    const org = Object.values(ORG_ROLE_PERMISSIONS).map((ps) => (ps.includes(p) ? 'yes' : '—'));
    const proj = Object.values(PROJECT_ROLE_PERMISSIONS).map((ps) => (ps.includes(p) ? 'yes' : '—'));
    out.push(`| \`${p}\` | ${[...org, ...proj].join(' | ')} |`);
  }
  out.push('');
  return out.join('\n');
}
