import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commandLine, invocation } from '../../cli/invocation.ts';
import { capture } from '../../figures/cli-capture.ts';
import { REPO_ROOT } from '../../docs/generate/index.ts';

describe('replay hints name pagecheck as the user started it', () => {
  it('the installed command, npx, and the repository script', () => {
    expect(invocation({})).toBe('pagecheck');
    expect(invocation({ npm_command: 'exec', npm_lifecycle_event: 'npx' })).toBe('npx pagecheck');
    expect(invocation({ npm_command: 'run-script', npm_lifecycle_event: 'pagecheck' })).toBe('npm run -s pagecheck --');
    // Inside the user's own `npm test`, pagecheck is the project's installed command.
    expect(invocation({ npm_command: 'test', npm_lifecycle_event: 'test' })).toBe('pagecheck');
    expect(invocation({ npm_command: 'test', npm_lifecycle_event: 'test', npm_package_name: 'my-server' })).toBe('pagecheck');
  });

  it('npm start in a clone: pagecheck is not on the PATH there, so the hint is the repository script', () => {
    expect(invocation({ npm_command: 'start', npm_lifecycle_event: 'start', npm_package_name: 'pagecheck' })).toBe('npm run -s pagecheck --');
    // npx inside the clone is still npx; a process with no lifecycle event was not started by npm.
    expect(invocation({ npm_command: 'exec', npm_lifecycle_event: 'npx', npm_package_name: 'pagecheck' })).toBe('npx pagecheck');
    expect(invocation({ npm_package_name: 'pagecheck' })).toBe('pagecheck');
  });

  it('builds a whole command line', () => {
    expect(commandLine('check --variant buggy', { npm_command: 'exec' })).toBe('npx pagecheck check --variant buggy');
  });

  it('the replay line `npm start` prints runs as printed, in the clone, and reproduces the counterexample', async () => {
    // The demo in-process, with the variables `npm start` sets in a clone.
    const demo = await capture(['demo'], { npm_command: 'start', npm_lifecycle_event: 'start', npm_package_name: 'pagecheck' });
    expect(demo.code).toBe(0);
    const line = /^replay: (.+)$/m.exec(demo.out)?.[1];
    expect(line).toBe('npm run -s pagecheck -- check --variant buggy --pages 3 --prefill-limit 2 --requests 2,3');
    // Run it with a shell, as a user pastes it, from the clone's root, with npm's variables gone.
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('npm_')));
    const replay = spawnSync(`${line!} --json`, { cwd: REPO_ROOT, encoding: 'utf8', shell: true, env: { ...clean, NO_COLOR: '1' } });
    expect(replay.status).toBe(1);
    expect(JSON.parse(replay.stdout)).toMatchObject({ verdict: 'violation', invariant: 'Isolation', traceLength: 9, distinctStates: 18 });
  }, 60_000);
});
