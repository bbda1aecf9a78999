// The page organizer: thumbnails of a PDF's pages (drawn by pdf.js from the chosen file, in the page),
// reorder by buttons or dragging, rotate, delete, duplicate, zoom one page, or select pages (checkbox,
// shift-click for a run, typed positions) and change them together; "Apply" runs one server job of
// `pages` and `rotate` steps. Nothing is edited in the browser and nothing is stored.
import type { QuireBrowser } from '@quire/client/browser';
import * as pdfjs from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  type Card,
  cardsFor,
  changeCards,
  duplicated,
  idsBetween,
  organizerSteps,
  rotated,
} from './organizer-cards.js';
import { SelectionBar } from './organizer-selection.js';

pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;

function Thumb({ pdf, card, scale }: { pdf: pdfjs.PDFDocumentProxy; card: Card; scale: number }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    let task: ReturnType<pdfjs.PDFPageProxy['render']> | undefined;
    pdf.getPage(card.page).then((page) => {
      const viewport = page.getViewport({ scale, rotation: (page.rotate + card.angle) % 360 });
      if (!canvas.current) return;
      canvas.current.width = viewport.width;
      canvas.current.height = viewport.height;
      task = page.render({ canvas: canvas.current, viewport });
      task.promise.catch(() => undefined);
    });
    return () => task?.cancel();
  }, [pdf, card.page, card.angle, scale]);
  return <canvas ref={canvas} role="img" aria-label={`Page ${card.page}`} />;
}

export default function Organizer({ client }: { client: QuireBrowser }) {
  const [file, setFile] = useState<File | null>(null);
  const [pdf, setPdf] = useState<pdfjs.PDFDocumentProxy | null>(null);
  const [cards, setCards] = useState<Card[]>([]);
  const [zoomed, setZoomed] = useState<Card | null>(null);
  const [dragged, setDragged] = useState<number | null>(null);
  const [status, setStatus] = useState('');
  const [selected, setSelected] = useState<Set<number>>(new Set());
  /** The position last checked or unchecked without shift: where a shift-click's run starts. */
  const [anchor, setAnchor] = useState<number | null>(null);

  async function open(chosen: File | undefined) {
    if (!chosen) return;
    setFile(chosen);
    const doc = await pdfjs.getDocument({
      data: new Uint8Array(await chosen.arrayBuffer()),
      isEvalSupported: false,
    }).promise;
    setPdf(doc);
    setCards(cardsFor(doc.numPages));
    setSelected(new Set());
    setAnchor(null);
  }

  const move = (from: number, to: number) => {
    if (to < 0 || to >= cards.length) return;
    const next = [...cards];
    const [card] = next.splice(from, 1);
    if (card) next.splice(to, 0, card);
    setCards(next);
  };
  const update = (card: Card, change: (card: Card) => Card[]) =>
    setCards(changeCards(cards, new Set([card.id]), change));

  function toggle(index: number, card: Card, shift: boolean) {
    const next = new Set(selected);
    if (shift && anchor !== null) for (const id of idsBetween(cards, anchor, index)) next.add(id);
    else {
      if (next.has(card.id)) next.delete(card.id);
      else next.add(card.id);
      setAnchor(index);
    }
    setSelected(next);
  }

  async function apply() {
    if (!file) return;
    setStatus('Sending the job…');
    const job = await client.jobs.create({ steps: organizerSteps(cards) as never, inputs: [file] });
    location.hash = `#/jobs/${job.id}`;
  }

  return (
    <section aria-labelledby="organizer-title">
      <h1 id="organizer-title">Organize pages</h1>
      <label for="organizer-file">PDF to organize</label>
      <input
        id="organizer-file"
        type="file"
        accept="application/pdf"
        onChange={(e) => open((e.target as HTMLInputElement).files?.[0])}
      />
      {pdf && (
        <>
          <p class="muted" aria-live="polite">
            {cards.length} pages. Changes are applied on the server as one job.
          </p>
          <SelectionBar cards={cards} selected={selected} onSelect={setSelected} onCards={setCards} />
          <ol class="organizer" aria-label="Pages, in their new order">
            {cards.map((card, index) => (
              <li
                key={card.id}
                class={selected.has(card.id) ? 'selected' : undefined}
                draggable
                onDragStart={() => setDragged(index)}
                onDragOver={(e) => e.preventDefault()}
                onDrop={(e) => {
                  e.preventDefault();
                  if (dragged !== null) move(dragged, index);
                  setDragged(null);
                }}
              >
                <Thumb pdf={pdf} card={card} scale={0.25} />
                <label class="check">
                  <input
                    type="checkbox"
                    checked={selected.has(card.id)}
                    onClick={(e) => toggle(index, card, e.shiftKey)}
                  />
                  <span class="sr">Select position {index + 1}: </span>
                  Page {card.page}
                  {card.angle ? ` (+${card.angle}°)` : ''}
                </label>
                <span class="tools-row">
                  <button type="button" onClick={() => move(index, index - 1)} disabled={index === 0}>
                    Earlier<span class="sr"> page {card.page}</span>
                  </button>
                  <button
                    type="button"
                    onClick={() => move(index, index + 1)}
                    disabled={index === cards.length - 1}
                  >
                    Later<span class="sr"> page {card.page}</span>
                  </button>
                  <button type="button" onClick={() => update(card, (c) => [rotated(c)])}>
                    Rotate<span class="sr"> page {card.page}</span>
                  </button>
                  <button type="button" onClick={() => update(card, duplicated)}>
                    Duplicate<span class="sr"> page {card.page}</span>
                  </button>
                  <button
                    type="button"
                    onClick={() => {
                      update(card, () => []);
                      setSelected(new Set([...selected].filter((id) => id !== card.id)));
                    }}
                    disabled={cards.length === 1}
                  >
                    Delete<span class="sr"> page {card.page}</span>
                  </button>
                  <button type="button" onClick={() => setZoomed(card)}>
                    Zoom<span class="sr"> page {card.page}</span>
                  </button>
                </span>
              </li>
            ))}
          </ol>
          {zoomed && (
            <div class="zoom">
              <Thumb pdf={pdf} card={zoomed} scale={1.25} />
              <button type="button" onClick={() => setZoomed(null)}>
                Close zoom
              </button>
            </div>
          )}
          <p role="status">{status}</p>
          <button type="button" onClick={apply}>
            Apply
          </button>
        </>
      )}
    </section>
  );
}
