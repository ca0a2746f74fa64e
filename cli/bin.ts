#!/usr/bin/env node
/** The installed `pagecheck` command (compiled to dist/cli/bin.js): runs the command line. */
import { exitOnBrokenPipe, main } from './main.ts';

exitOnBrokenPipe(process.stdout);
process.exitCode = await main(process.argv.slice(2));
