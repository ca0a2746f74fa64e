/** `pagecheck check`: being built (see the open issues); registered so that the command line is whole. */
import type { Command } from 'commander';
import { UsageError } from '../errors.ts';

/** Registers the command. */
export function register(program: Command): void {
  program
    .command('check')
    .description('not built yet')
    .allowUnknownOption()
    .action(() => {
      throw new UsageError('pagecheck check is not built yet');
    });
}
