/**
 * How the user started pagecheck, so that the replay lines the commands print can be
 * pasted back as they are: `npx pagecheck` under npx, `npm run -s pagecheck --` from the
 * repository's own script, and the installed `pagecheck` otherwise.
 */

/** The environment variables npm sets that tell how a process was started. */
type NpmEnv = Readonly<Record<string, string | undefined>>;

/** The words that start pagecheck the way this process was started: `pagecheck`, `npx pagecheck` or `npm run -s pagecheck --`. */
export function invocation(env: NpmEnv = process.env): string {
  // `npm run pagecheck` (the repository's script) sets the lifecycle event to the script's name.
  if (env['npm_lifecycle_event'] === 'pagecheck') return 'npm run -s pagecheck --';
  // npx (npm exec) sets npm_command to `exec`; the command is then not on the user's PATH.
  if (env['npm_command'] === 'exec' || env['npm_lifecycle_event'] === 'npx') return 'npx pagecheck';
  return 'pagecheck';
}

/** `pagecheck <words>` as the user would type it to run it again. */
export function commandLine(words: string, env: NpmEnv = process.env): string {
  return `${invocation(env)} ${words}`;
}
