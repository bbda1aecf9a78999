// The organizer's model, apart from drawing: the cards in their new order, what a selection does to
// them (rotate, duplicate, delete), positions typed as ranges, and the server job's steps.

export interface Card {
  id: number;
  /** The page of the original document, from 1. */
  page: number;
  /** Added clockwise rotation: 0, 90, 180 or 270. */
  angle: number;
}

let nextId = 1;

export function cardsFor(pages: number): Card[] {
  return Array.from({ length: pages }, (_, i) => ({ id: nextId++, page: i + 1, angle: 0 }));
}

/** The job's steps: `pages` keeps the new order (repeats allowed), then one `rotate` per angle. */
export function organizerSteps(cards: Card[]): Array<{ tool: string; options: Record<string, unknown> }> {
  const steps: Array<{ tool: string; options: Record<string, unknown> }> = [
    { tool: 'pages', options: { keep: cards.map((c) => c.page).join(',') } },
  ];
  for (const angle of [90, 180, 270]) {
    const at = cards.flatMap((c, i) => (c.angle === angle ? [i + 1] : []));
    if (at.length > 0) steps.push({ tool: 'rotate', options: { angle, pages: at.join(',') } });
  }
  return steps;
}

export const rotated = (card: Card): Card => ({ ...card, angle: (card.angle + 90) % 360 });
export const duplicated = (card: Card): Card[] => [card, { ...card, id: nextId++ }];

/** `change` applied to the cards whose ids are in `ids`; the others stay as they are. */
export function changeCards(cards: Card[], ids: Set<number>, change: (card: Card) => Card[]): Card[] {
  return cards.flatMap((card) => (ids.has(card.id) ? change(card) : [card]));
}

/**
 * Positions (from 1, in the current order) written as `1-3,6`: the selection a person types. Answers
 * the positions in order, or the mistake in words.
 */
export function parsePositions(text: string, count: number): number[] | string {
  const positions = new Set<number>();
  const parts = text.split(',').map((part) => part.trim());
  if (parts.every((part) => part === '')) return 'Type positions such as 1-3,6.';
  for (const part of parts) {
    const match = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(part);
    if (!match) return `“${part}” is not a position or a range such as 2-4.`;
    const from = Number(match[1]);
    const to = Number(match[2] ?? match[1]);
    if (from < 1 || to > count) return `“${part}” is outside 1–${count}.`;
    if (from > to) return `“${part}” runs backwards.`;
    for (let at = from; at <= to; at++) positions.add(at);
  }
  return [...positions].sort((a, b) => a - b);
}

/** The ids from position `a` to position `b` (either order, from 0), as a shift-click selects. */
export function idsBetween(cards: Card[], a: number, b: number): number[] {
  return cards.slice(Math.min(a, b), Math.max(a, b) + 1).map((card) => card.id);
}
