import { Command, Option } from 'commander';
import { completes } from './completion-values.js';
import type { Context } from './context.js';
import { OUTPUT_MODES } from './output/render.js';

export type { GlobalOptions } from './globals.js';

import { nonNegativeInt } from './parse.js';

/** A noun module: registers its verbs on the noun's command. */
export interface NounModule {
  register(noun: Command, ctx: Context): void;
}

/** One noun of the command line; `load` imports its module only when that noun is run. */
export interface NounEntry {
  name: string;
  summary: string;
  load: () => Promise<NounModule>;
}

/** Every noun, in the order root help lists them. Static so `--help` and `--version` import no command module. */
export const NOUNS: readonly NounEntry[] = [
  {
    name: 'local',
    summary: 'The embedded platform: init, reset, mail, path',
    load: () => import('./commands/local.js'),
  },
  { name: 'serve', summary: 'Serve the embedded platform over HTTP', load: () => import('./commands/serve.js') },
  {
    name: 'profiles',
    summary: 'Named settings: remote instances, organizations',
    load: () => import('./commands/profiles.js'),
  },
  {
    name: 'login',
    summary: 'Sign in to a remote instance (browser or device code)',
    load: () => import('./commands/login.js'),
  },
  {
    name: 'logout',
    summary: "End the profile's session and remove its credential",
    load: () => import('./commands/logout.js'),
  },
  {
    name: 'whoami',
    summary: 'Who the credential acts as, where, and until when',
    load: () => import('./commands/whoami.js'),
  },
  {
    name: 'auth',
    summary: 'Where commands go and with which credential; the access token',
    load: () => import('./commands/auth.js'),
  },
  { name: 'orgs', summary: 'Organizations', load: () => import('./commands/orgs.js') },
  { name: 'users', summary: 'Users of an organization', load: () => import('./commands/users.js') },
  { name: 'invitations', summary: 'Pending invitations', load: () => import('./commands/invitations.js') },
  { name: 'teams', summary: 'Teams of an organization', load: () => import('./commands/teams.js') },
  { name: 'projects', summary: 'Projects of an organization', load: () => import('./commands/projects.js') },
  { name: 'members', summary: 'Members of a project', load: () => import('./commands/members.js') },
  {
    name: 'envs',
    summary: 'Environments of a project and their configuration',
    load: () => import('./commands/envs.js'),
  },
  { name: 'sessions', summary: 'Sign-in sessions of a user', load: () => import('./commands/sessions.js') },
  {
    name: 'mfa',
    summary: 'Second factors of a user: list, enroll an authenticator app, remove',
    load: () => import('./commands/mfa.js'),
  },
  { name: 'sso', summary: 'Single sign-on of an organization', load: () => import('./commands/sso.js') },
  {
    name: 'scim',
    summary: 'Directory sync: SCIM tokens for Okta and Microsoft Entra ID',
    load: () => import('./commands/scim.js'),
  },
  {
    name: 'domains',
    summary: 'Domains an organization proves by DNS (where its single sign-on applies)',
    load: () => import('./commands/domains.js'),
  },
  { name: 'keys', summary: 'API keys', load: () => import('./commands/keys.js') },
  {
    name: 'events',
    summary: 'The audit log: list it, tail it as it is written, forward it to a local URL',
    load: () => import('./commands/events.js'),
  },
  {
    name: 'webhooks',
    summary: 'Webhook endpoints: events POSTed, signed, to your URLs; their deliveries',
    load: () => import('./commands/webhooks.js'),
  },
  { name: 'api', summary: 'Call any endpoint, raw JSON out', load: () => import('./commands/api.js') },
  {
    name: 'completion',
    summary: 'Shell completion script: bash, zsh or fish',
    load: () => import('./commands/completion.js'),
  },
];

/** Global options that take a value: the noun is the first argument that is neither one of them nor their value. */
const VALUE_OPTIONS = new Set([
  '--profile',
  '--org',
  '--base-url',
  '--db',
  '--database-url',
  '-o',
  '--output',
  '--request-id',
  '--max-retries',
]);

/** The noun an argument vector runs (`help NOUN` counts), or undefined. */
export function nounOf(argv: readonly string[]): string | undefined {
  const positional: string[] = [];
  for (let i = 0; i < argv.length && positional.length < 2; i++) {
    const arg = argv[i] as string;
    if (arg === '--') break;
    if (arg.startsWith('-')) {
      if (VALUE_OPTIONS.has(arg)) i++;
      continue;
    }
    positional.push(arg);
  }
  return positional[0] === 'help' ? positional[1] : positional[0];
}

const ROOT_EXAMPLES = `
Examples:
  $ plat users list --status active
  $ plat projects create "Billing API" --description "Invoices and payments"
  $ plat --profile prod --json projects list --all
  $ PLAT_API_KEY=… PLAT_BASE_URL=https://api.example.com/v2 plat users list -o ids

With no configuration, plat uses the embedded platform (profile "local"), created on first use.
Exit codes: 0 ok, 1 unexpected, 2 usage, 3 not authenticated, 4 forbidden, 5 not found, 6 conflict,
7 invalid, 8 rate limited, 9 network, 130 interrupted (an import, which can be resumed).
`;

/** The root command with its global options (no noun registered yet). */
export function rootCommand(version: string): Command {
  const program = new Command('plat')
    .description('Administer a multi-organization platform, remote or embedded.')
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addOption(
      completes(
        new Option('--profile <name>', 'use this profile (default: PLAT_PROFILE, the current profile, or "local")'),
        'profiles',
      ),
    )
    .option('--org <org>', 'act in this organization, by id or slug (its id is sent as X-Org-Id)')
    .option('--base-url <url>', 'talk to the instance at this URL (…/v2)')
    .option('--sandbox', "use the profile's sandbox instance")
    .addOption(completes(new Option('--db <path>', 'embedded platform database file'), 'files'))
    .option('--database-url <url>', 'embedded platform on this PostgreSQL database (also PLAT_DATABASE_URL)')
    .option('--json', 'print JSON (same as -o json)')
    // Checked before the action (routeOutput), not here: `users export --output FILE` takes it for a file name.
    .addOption(
      new Option('-o, --output <mode>', 'output: table, json, csv or ids').choices(OUTPUT_MODES).argParser(String),
    )
    .option('--no-color', 'no colour, even on a terminal')
    .option('-q, --quiet', 'no notices or progress; no record after a change unless -o/--json asks')
    .option('--verbose', 'log every API call (method, URL, status, time, request id, rate limit) on stderr')
    .option('--request-id <id>', 'send this X-Request-Id')
    .option('-y, --yes', 'do not ask for confirmation (needed for destructive commands without a terminal)')
    .option('--max-retries <n>', 'retries after 429 or a connection failure (default 3)', nonNegativeInt)
    .option('--api-key-stdin', 'read the API key to use from stdin')
    .addHelpText('after', ROOT_EXAMPLES)
    .showSuggestionAfterError(true)
    .hook('preAction', routeOutput);
  return program;
}

/**
 * Commander gives the root every `-o/--output`, wherever it stands on the command line. A command with an `--output`
 * of its own (`users export --output FILE`) gets the value; for every other one it must be an output mode, refused
 * (exit 2) before the command does anything, as commander's own choice check would.
 */
function routeOutput(root: Command, leaf: Command): void {
  const value = root.getOptionValue('output') as string | undefined;
  if (value === undefined) return;
  if (leaf !== root && leaf.options.some((o) => o.long === '--output')) {
    leaf.setOptionValue('output', value);
    root.setOptionValue('output', undefined);
  } else if (!(OUTPUT_MODES as readonly string[]).includes(value)) {
    const allowed = `Allowed choices are ${OUTPUT_MODES.join(', ')}.`;
    root.error(`error: option '-o, --output <mode>' argument '${value}' is invalid. ${allowed}`, {
      code: 'commander.invalidArgument',
      exitCode: 1,
    });
  }
}

/**
 * The program for one argument vector: the root, a stub per noun (enough for root help), and the real commands of
 * the one noun being run, imported on demand. `all` loads every noun (completion, the reference generator).
 */
export async function buildProgram(
  argv: readonly string[],
  ctx: Context,
  version: string,
  opts: { all?: boolean } = {},
): Promise<Command> {
  const program = rootCommand(version)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => void ctx.deps.stdout.write(s),
      writeErr: (s) => void ctx.deps.stderr.write(s),
      getOutHelpWidth: () => ctx.deps.stdout.columns ?? 80,
      getErrHelpWidth: () => ctx.deps.stderr.columns ?? 80,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
      // Errors are printed by run(), as `plat: …` (or JSON with --json), like every other failure.
      outputError: () => {},
    });
  const target = nounOf(argv);
  for (const entry of NOUNS) {
    const noun = program.command(entry.name).description(entry.summary);
    if (opts.all || entry.name === target) (await entry.load()).register(noun, ctx);
  }
  return program;
}
