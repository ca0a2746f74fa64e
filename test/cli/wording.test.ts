import { describe, expect, it } from 'vitest';
import { actionsIn, count } from '../../cli/search-report.ts';
import { configWarnings } from '../../cli/warnings.ts';
import { compile, configFrom } from '../../spec/index.ts';

describe('the words check and demo print', () => {
  it('a trace of one action is "1 action", of more "N actions"; counts have thousands separators', () => {
    expect([0, 1, 2, 9].map(actionsIn)).toEqual(['0 actions', '1 action', '2 actions', '9 actions']);
    expect(count(17205402)).toBe('17,205,402');
  });

  it('a warning about the longest request says "1 page" and "1 token", more in the plural', () => {
    const longest = (requests: readonly number[], pageSize = 1): string[] =>
      configWarnings(compile(configFrom({ pages: 4, prefillLimit: 2, pageSize, requests: requests.map((length) => ({ length })), variant: 'buggy' }))).map((w) => /\(the longest is ([^)]*)\)/.exec(w)?.[1] ?? w);
    expect(longest([1])).toEqual(['1 page']);
    expect(longest([2, 1])).toEqual(['2 pages']);
    expect(longest([1], 2)).toEqual(['1 token']);
  });
});
