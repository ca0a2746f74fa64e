#!/usr/bin/env node
/** The installed `pagecheck` command (compiled to dist/cli/bin.js): runs the command line. */
import { exitOnBrokenPipe, run } from './main.ts';

exitOnBrokenPipe(process.stdout);
process.exitCode = await run(process.argv.slice(2));
