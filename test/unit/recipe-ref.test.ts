// The recipe reference grammar (docs/api.md §13): an id or a name, optionally `@version`; anything
// else names no recipe.
import { describe, expect, it } from 'vitest';
import { parseRecipeRef } from '../../src/model/recipe.js';

const ID = 'rcp_01JD0000000000000000000000';

describe('parseRecipeRef', () => {
  it.each([
    ['scan-cleanup', { name: 'scan-cleanup' }],
    ['scan-cleanup@2', { name: 'scan-cleanup', version: 2 }],
    ['a', { name: 'a' }],
    ['v1.2_final', { name: 'v1.2_final' }],
    [ID, { id: ID }],
    [`${ID}@12`, { id: ID, version: 12 }],
    ['x'.repeat(64), { name: 'x'.repeat(64) }],
  ])('reads %s', (text, ref) => {
    expect(parseRecipeRef(text)).toEqual(ref);
  });

  it.each([
    '',
    'Scan',
    '-lead',
    'has space',
    'name@0',
    'name@01',
    'name@',
    'name@x',
    'name@1@2',
    'name@1000000001',
    'x'.repeat(65),
    'rcp_01jd0000000000000000000000@1@',
    '../etc',
  ])('refuses %j', (text) => {
    expect(parseRecipeRef(text)).toBeUndefined();
  });
});
