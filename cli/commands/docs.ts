/** `pagecheck docs`: being built (see the open issues); registered so that the command line is whole. */
import type { Command } from 'commander';
import { UsageError } from '../errors.ts';

/** Registers the command. */
export function register(program: Command): void {
  program
    .command('docs')
    .description('not built yet')
    .allowUnknownOption()
    .action(() => {
      throw new UsageError('pagecheck docs is not built yet');
    });
}
