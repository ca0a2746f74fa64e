import { describe, expect, it } from 'vitest';
import { commandLine, invocation } from '../../cli/invocation.ts';

describe('replay hints name pagecheck as the user started it', () => {
  it('the installed command, npx, and the repository script', () => {
    expect(invocation({})).toBe('pagecheck');
    expect(invocation({ npm_command: 'exec', npm_lifecycle_event: 'npx' })).toBe('npx pagecheck');
    expect(invocation({ npm_command: 'run-script', npm_lifecycle_event: 'pagecheck' })).toBe('npm run -s pagecheck --');
    // Inside the user's own `npm test`, pagecheck is the project's installed command.
    expect(invocation({ npm_command: 'test', npm_lifecycle_event: 'test' })).toBe('pagecheck');
  });

  it('builds a whole command line', () => {
    expect(commandLine('check --variant buggy', { npm_command: 'exec' })).toBe('npx pagecheck check --variant buggy');
  });
});
