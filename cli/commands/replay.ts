/** `pagecheck replay`: being built (see the open issues); registered so that the command line is whole. */
import type { Command } from 'commander';
import { UsageError } from '../errors.ts';

/** Registers the command. */
export function register(program: Command): void {
  program
    .command('replay')
    .description('not built yet')
    .allowUnknownOption()
    .action(() => {
      throw new UsageError('pagecheck replay is not built yet');
    });
}
