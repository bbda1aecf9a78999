// The web organizer's model (web/src/organizer-cards.ts): typed positions, shift-click runs, what a
// selection does to the cards, and the one server job's steps they become.
import { describe, expect, it } from 'vitest';
import {
  cardsFor,
  changeCards,
  duplicated,
  idsBetween,
  organizerSteps,
  parsePositions,
  rotated,
} from '../../web/src/organizer-cards.js';

describe('parsePositions', () => {
  it.each([
    ['1-3,6', 6, [1, 2, 3, 6]],
    [' 2 , 2-3 ', 4, [2, 3]],
    ['4', 4, [4]],
    ['3 - 4,1', 4, [1, 3, 4]],
  ])('reads %j of %i pages as %j', (text, count, positions) => {
    expect(parsePositions(text, count)).toEqual(positions);
  });

  it.each([
    ['', 4, /Type positions/],
    ['0', 4, /outside 1–4/],
    ['2-9', 4, /outside 1–4/],
    ['3-1', 4, /runs backwards/],
    ['1-x', 4, /not a position/],
    ['1,,2', 4, /not a position/],
  ])('refuses %j of %i pages in words', (text, count, mistake) => {
    expect(parsePositions(text, count)).toMatch(mistake);
  });
});

describe('a selection', () => {
  it('selects the run between two positions in either order', () => {
    const cards = cardsFor(5);
    const ids = cards.map((c) => c.id);
    expect(idsBetween(cards, 3, 1)).toEqual(ids.slice(1, 4));
    expect(idsBetween(cards, 1, 3)).toEqual(ids.slice(1, 4));
  });

  it('duplicates, turns and deletes only the selected cards, and the job keeps their order', () => {
    let cards = cardsFor(3);
    const [first, second] = cards;
    cards = changeCards(cards, new Set([first!.id, second!.id]), duplicated);
    expect(cards.map((c) => c.page)).toEqual([1, 1, 2, 2, 3]);
    expect(new Set(cards.map((c) => c.id)).size).toBe(5);
    cards = changeCards(cards, new Set([cards[1]!.id, cards[4]!.id]), (c) => [rotated(rotated(c))]);
    cards = changeCards(cards, new Set([cards[2]!.id]), () => []);
    expect(organizerSteps(cards)).toEqual([
      { tool: 'pages', options: { keep: '1,1,2,3' } },
      { tool: 'rotate', options: { angle: 180, pages: '2,4' } },
    ]);
  });
});
