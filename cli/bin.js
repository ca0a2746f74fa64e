#!/usr/bin/env node
// The installed `pagecheck` command: loads tsx so that the TypeScript sources run as they are.
import { register } from 'tsx/esm/api';

register();
process.env.PAGECHECK_MAIN = '1';
await import('./main.ts');
