#!/usr/bin/env node
/**
 * The installed `pagecheck` command (compiled to dist/cli/bin.js): runs the command line.
 * It listens for Ctrl-C before it loads the rest, so that a long command interrupted while
 * its modules load still ends with its partial summary and exit 130 (interrupt.ts).
 */
import { holdForTest, isInterrupting, listenForInterrupt } from './interrupt.ts';

listenForInterrupt(process.argv.slice(2));
await holdForTest();
const { exitOnBrokenPipe, run } = await import('./main.ts');
exitOnBrokenPipe(process.stdout);
// Once Ctrl-C is being handled, what the stopped command throws is not news: the handler prints the summary and exits 130.
process.exitCode = await run(process.argv.slice(2)).catch((e: unknown): Promise<number> => (isInterrupting() ? new Promise<number>(() => {}) : Promise.reject(e as Error)));
