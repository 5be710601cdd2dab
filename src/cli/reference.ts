import { PassThrough } from 'node:stream';
import type { Command, Option } from 'commander';
import { createContext } from './context.js';
import { EXIT_CODES } from './errors.js';
import { buildProgram } from './program.js';
import { examplesOf } from './verb.js';

const MEANINGS: Record<keyof typeof EXIT_CODES, string> = {
  unexpected: 'unexpected failure, `500`',
  usage: 'usage error: unknown command or flag, bad argument, missing `--yes`',
  unauthenticated: 'not authenticated: no credentials, `401`',
  forbidden: '`403` insufficient permissions',
  not_found: '`404` not found',
  conflict: '`409` conflict',
  invalid: '`400`/`422` invalid request, or a value the CLI rejects before sending',
  rate_limited: '`429` still rate limited after the retries',
  network: 'network failure: unreachable, TLS, timeout',
  interrupted: 'interrupted (Ctrl-C) during an import, which stopped cleanly and can be resumed',
};

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function optionsTable(cmd: Command, options: readonly Option[]): string[] {
  const help = cmd.createHelp();
  const shown = options.filter((o) => !o.hidden && o.long !== '--help');
  if (shown.length === 0) return [];
  return [
    '| Option | Description |',
    '|---|---|',
    ...shown.map((o) => `| \`${cell(help.optionTerm(o))}\` | ${cell(help.optionDescription(o))} |`),
    '',
  ];
}

function section(cmd: Command, path: string, level: string): string[] {
  const help = cmd.createHelp();
  const examples = examplesOf(cmd);
  return [
    `${level} ${path}`,
    '',
    cmd.description(),
    '',
    `Usage: \`${help.commandUsage(cmd)}\``,
    '',
    ...optionsTable(cmd, cmd.options),
    ...(examples.length ? ['```sh', ...examples, '```', ''] : []),
  ];
}

/** The command reference in Markdown, from the program itself so that it cannot drift from the code. */
export function renderReference(program: Command): string {
  const lines = [
    '# `plat` command reference',
    '',
    'Generated from the program by `npm run docs:cli`; do not edit by hand.',
    '',
    '## Global options',
    '',
    'Accepted before or after the command.',
    '',
    ...optionsTable(
      program,
      program.options.filter((o) => o.long !== '--version'),
    ),
    '## Exit codes',
    '',
    '| Code | Meaning |',
    '|---|---|',
    '| 0 | success (an empty list is success) |',
    ...Object.entries(EXIT_CODES).map(([kind, code]) => `| ${code} | ${MEANINGS[kind as keyof typeof EXIT_CODES]} |`),
    '',
    '## Commands',
    '',
  ];
  for (const noun of program.commands) {
    if (noun.commands.length === 0) {
      lines.push(...section(noun, `plat ${noun.name()}`, '###'));
      continue;
    }
    lines.push(`### plat ${noun.name()}`, '', noun.description(), '');
    for (const verb of noun.commands) lines.push(...section(verb, `plat ${noun.name()} ${verb.name()}`, '####'));
  }
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}

/** Builds the whole program (every noun) with an inert context and renders its reference. */
export async function cliReference(): Promise<string> {
  const streams = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough() };
  let program: Command | undefined;
  const { ctx } = createContext({ ...streams, env: {}, cwd: '/' }, () => ({ color: false, ...program?.opts() }));
  program = await buildProgram([], ctx, 'reference', { all: true });
  return renderReference(program);
}
