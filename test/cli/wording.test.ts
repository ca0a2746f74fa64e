import { describe, expect, it } from 'vitest';
import { actionsIn, count } from '../../cli/commands/check.ts';

describe('the words check and demo print', () => {
  it('a trace of one action is "1 action", of more "N actions"; counts have thousands separators', () => {
    expect([0, 1, 2, 9].map(actionsIn)).toEqual(['0 actions', '1 action', '2 actions', '9 actions']);
    expect(count(17205402)).toBe('17,205,402');
  });
});
