import type { Command } from 'commander';
import { bashScript, fishScript, specOf, zshScript } from '../completion-scripts.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { asLeaf } from '../verb.js';

const SHELLS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;
type Shell = keyof typeof SHELLS;

/** `plat completion SHELL` */
export function register(cmd: Command, ctx: Context): void {
  asLeaf<{ shell: Shell }>(cmd, ctx, {
    args: '<shell>',
    argValues: [Object.keys(SHELLS)],
    summary: 'Print a completion script for bash, zsh or fish',
    examples: [
      'source <(plat completion bash)',
      'source <(plat completion zsh)',
      'plat completion fish > ~/.config/fish/completions/plat.fish',
    ],
    parse: ([shell]) => {
      if (!(shell in SHELLS)) throw new UsageError(`unknown shell "${shell}": use bash, zsh or fish`);
      return { shell: shell as Shell };
    },
    run: async (o, ctx) => ({ kind: 'text', text: SHELLS[o.shell](specOf(await ctx.program())) }),
  });
}
