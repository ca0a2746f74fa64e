/**
 * How the user started pagecheck, so that the replay lines the commands print can be
 * pasted back as they are: `npx pagecheck` under npx, `npm run -s pagecheck --` from the
 * repository's own scripts (`npm start`, `npm run pagecheck`), and the installed
 * `pagecheck` otherwise.
 */

/** The environment variables npm sets that tell how a process was started. */
type NpmEnv = Readonly<Record<string, string | undefined>>;

/** The form that works in a clone of the repository, where `pagecheck` is not on the PATH. */
export const REPOSITORY_FORM = 'npm run -s pagecheck --';

/** The words that start pagecheck the way this process was started: `pagecheck`, `npx pagecheck` or `npm run -s pagecheck --`. */
export function invocation(env: NpmEnv = process.env): string {
  const event = env['npm_lifecycle_event'] ?? '';
  // `npm run pagecheck` (the repository's script) sets the lifecycle event to the script's name.
  if (event === 'pagecheck') return REPOSITORY_FORM;
  // npx (npm exec) sets npm_command to `exec`; the command is then not on the user's PATH.
  if (env['npm_command'] === 'exec' || event === 'npx') return 'npx pagecheck';
  // Any other script of pagecheck's own package.json (`npm start` runs `demo`) runs in a clone,
  // where no `pagecheck` is installed; in a user's project the package name is the user's.
  if (event !== '' && env['npm_package_name'] === 'pagecheck') return REPOSITORY_FORM;
  return 'pagecheck';
}

/** `pagecheck <words>` as the user would type it to run it again. */
export function commandLine(words: string, env: NpmEnv = process.env): string {
  return `${invocation(env)} ${words}`;
}
