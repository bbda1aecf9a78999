// The organizer's selection bar: select pages by typing positions (`1-3,6`), all or none, and rotate,
// duplicate or delete what is selected in one go. Shift-click on the cards selects a run (organizer.tsx).
import { useState } from 'preact/hooks';
import { type Card, changeCards, duplicated, parsePositions, rotated } from './organizer-cards.js';

interface Props {
  cards: Card[];
  selected: Set<number>;
  onSelect: (ids: Set<number>) => void;
  onCards: (cards: Card[]) => void;
}

export function SelectionBar({ cards, selected, onSelect, onCards }: Props) {
  const [typed, setTyped] = useState('');
  const [mistake, setMistake] = useState('');
  const count = selected.size;

  function selectTyped(event: Event) {
    event.preventDefault();
    const positions = parsePositions(typed, cards.length);
    if (typeof positions === 'string') {
      setMistake(positions);
      return;
    }
    setMistake('');
    onSelect(new Set(positions.map((at) => cards[at - 1]?.id ?? -1)));
  }

  return (
    <fieldset class="selection">
      <legend>Selected pages</legend>
      <form class="inline" onSubmit={selectTyped} noValidate>
        <label for="select-range">Select positions</label>
        <input
          id="select-range"
          value={typed}
          placeholder="1-3,6"
          aria-invalid={mistake ? 'true' : undefined}
          aria-describedby={mistake ? 'select-range-hint select-range-error' : 'select-range-hint'}
          onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
        />
        <button type="submit">Select</button>
        <button type="button" onClick={() => onSelect(new Set(cards.map((c) => c.id)))}>
          Select all
        </button>
        <button type="button" onClick={() => onSelect(new Set())} disabled={count === 0}>
          Clear selection
        </button>
        <p id="select-range-hint" class="hint">
          Positions in the order shown, e.g. 1-3,6; or shift-click a second page to select the run.
        </p>
        {mistake && (
          <p id="select-range-error" class="error" role="alert">
            {mistake}
          </p>
        )}
      </form>
      <p class="actions">
        <span role="status">
          {count} of {cards.length} selected
        </span>
        <button
          type="button"
          disabled={count === 0}
          onClick={() => onCards(changeCards(cards, selected, (c) => [rotated(c)]))}
        >
          Rotate selected
        </button>
        <button
          type="button"
          disabled={count === 0}
          onClick={() => onCards(changeCards(cards, selected, duplicated))}
        >
          Duplicate selected
        </button>
        <button
          type="button"
          // A PDF keeps at least one page.
          disabled={count === 0 || count === cards.length}
          onClick={() => {
            onCards(changeCards(cards, selected, () => []));
            onSelect(new Set());
          }}
        >
          Delete selected
        </button>
      </p>
    </fieldset>
  );
}
