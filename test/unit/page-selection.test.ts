import { describe, expect, it } from 'vitest';
import {
  isPageSelectionSyntaxValid,
  pageRuns,
  resolvePageList,
  resolvePageSet,
  toQpdfRange,
} from '../../src/tools/framework/page-selection.js';

describe('resolvePageList', () => {
  const cases: [string | undefined, number, number[]][] = [
    [undefined, 3, [1, 2, 3]],
    ['', 3, [1, 2, 3]],
    ['  ', 2, [1, 2]],
    ['1-3,7,10-z', 12, [1, 2, 3, 7, 10, 11, 12]],
    ['z', 5, [5]],
    ['r1', 5, [5]],
    ['r2', 5, [4]],
    ['r3-z', 5, [3, 4, 5]],
    ['5-1', 5, [5, 4, 3, 2, 1]],
    ['z-1', 3, [3, 2, 1]],
    ['2,2,1', 3, [2, 2, 1]],
    [' 1 - 2 , Z ', 4, [1, 2, 4]],
    ['R1', 4, [4]],
    ['1-1', 1, [1]],
  ];
  it.each(cases)('"%s" of %i pages → %j', (text, count, expected) => {
    expect(resolvePageList(text, count)).toEqual(expected);
  });

  const outside: [string, number][] = [
    ['6', 5],
    ['1-6', 5],
    ['r6', 5],
    ['r2', 1],
  ];
  it.each(outside)('"%s" of %i pages fails page_range_invalid', (text, count) => {
    expect(() => resolvePageList(text, count)).toThrow(
      expect.objectContaining({ code: 'page_range_invalid' }),
    );
  });

  it('a malformed selection also fails page_range_invalid at run time', () => {
    expect(() => resolvePageList('1-', 5)).toThrow(expect.objectContaining({ code: 'page_range_invalid' }));
  });
});

describe('isPageSelectionSyntaxValid', () => {
  it.each(['', '1', '1-3,7,10-z', 'r1', 'r2-z', '5-1', ' 1 , 2 '])('accepts "%s"', (text) => {
    expect(isPageSelectionSyntaxValid(text)).toBe(true);
  });
  it.each(['0', 'r0', '1-', '-3', '1,,2', 'a', '1-2-3', '1;2', 'x-z', '01', '1.5', ','])(
    'refuses "%s"',
    (text) => {
      expect(isPageSelectionSyntaxValid(text)).toBe(false);
    },
  );
});

describe('resolvePageSet', () => {
  it('sorts and removes repeats', () => {
    expect(resolvePageSet('3,1-2,2,z', 4)).toEqual([1, 2, 3, 4]);
  });
});

describe('toQpdfRange', () => {
  const cases: [number[], string][] = [
    [[1, 2, 3], '1-3'],
    [[1, 2, 3, 7, 10, 11], '1-3,7,10-11'],
    [[5, 4, 3], '5-3'],
    [[2, 2, 1], '2,2-1'],
    [[4], '4'],
    [[], ''],
  ];
  it.each(cases)('%j → "%s"', (pages, expected) => {
    expect(toQpdfRange(pages)).toBe(expected);
  });
});

describe('pageRuns', () => {
  it.each([
    [
      [1, 2, 3, 7],
      10,
      [
        { first: 1, last: 3 },
        { first: 7, last: 7 },
      ],
    ],
    [
      [1, 2, 3, 4, 5],
      2,
      [
        { first: 1, last: 2 },
        { first: 3, last: 4 },
        { first: 5, last: 5 },
      ],
    ],
    [
      [4, 3],
      10,
      [
        { first: 4, last: 4 },
        { first: 3, last: 3 },
      ],
    ],
    [[], 10, []],
  ])('%o in runs of %i', (pages, max, runs) => {
    expect(pageRuns(pages, max)).toEqual(runs);
  });
});
