// The page organizer's flow: reorder, rotate, delete and zoom single pages, then select pages by typed
// positions and by shift-click and duplicate, rotate and delete the selection; "Apply" runs one server
// job, whose result is checked with qpdf (structure, page order by text, each page's /Rotate).
import { execFileSync } from 'node:child_process';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { downloadResult, pageTexts, signInWithLink } from './flows.js';

/** Each page's /Rotate in `pdf`, in order (0 when the page has none). */
export function pageRotations(pdf: string): number[] {
  const pages = JSON.parse(execFileSync('qpdf', ['--json', '--json-key=pages', pdf], { encoding: 'utf8' }))
    .pages as Array<{ object: string }>;
  return pages.map((page) => {
    const object = execFileSync('qpdf', [`--show-object=${page.object.split(' ')[0]}`, pdf], {
      encoding: 'utf8',
    });
    return Number(/\/Rotate (\d+)/.exec(object)?.[1] ?? 0);
  });
}

const checkbox = (p: Page, position: number) =>
  p.getByRole('checkbox', { name: new RegExp(`^Select position ${position}:`) });

async function checked(p: Page, count: number): Promise<boolean[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => checkbox(p, i + 1).isChecked()));
}

export async function organizerFlow(p: Page, app: string, key: string, source: string): Promise<void> {
  await signInWithLink(p, app, key);
  await p.goto(`${app}#/organize`);
  await p.getByLabel('PDF to organize').setInputFiles(source);
  await p.getByRole('img', { name: 'Page 4' }).waitFor();
  // One page at a time: 4 to the front, 2 turned, 3 gone → 4, 1, 2↻.
  for (let i = 0; i < 3; i++) await p.getByRole('button', { name: 'Earlier page 4' }).click();
  await p.getByRole('button', { name: 'Rotate page 2' }).click();
  await p.getByRole('button', { name: 'Delete page 3' }).click();
  await p.getByRole('button', { name: 'Zoom page 1' }).click();
  await p.getByRole('button', { name: 'Close zoom' }).click();
  // A typed range: positions 1-2 (pages 4 and 1) duplicated → 4, 4, 1, 1, 2↻.
  await p.getByLabel('Select positions').fill('1-2');
  await p.getByRole('button', { name: 'Select', exact: true }).click();
  await expect.poll(() => checked(p, 3)).toEqual([true, true, false]);
  await p.getByRole('button', { name: 'Duplicate selected' }).click();
  await expect.poll(() => p.locator('.organizer li').count()).toBe(5);
  // Shift-click: position 2, then shift on 4, selects 2-4, turned → 4, 4↻, 1↻, 1↻, 2↻.
  await p.getByRole('button', { name: 'Clear selection' }).click();
  await checkbox(p, 2).click();
  await checkbox(p, 4).click({ modifiers: ['Shift'] });
  await expect.poll(() => checked(p, 5)).toEqual([false, true, true, true, false]);
  await p.getByText('3 of 5 selected').waitFor();
  await p.getByRole('button', { name: 'Rotate selected' }).click();
  // A range the document does not have is refused next to the field; then position 3 is deleted.
  await p.getByRole('button', { name: 'Clear selection' }).click();
  await p.getByLabel('Select positions').fill('3-9');
  await p.getByRole('button', { name: 'Select', exact: true }).click();
  await expect.poll(() => p.getByLabel('Select positions').getAttribute('aria-invalid')).toBe('true');
  expect(await p.locator('#select-range-error').textContent()).toMatch(/outside 1–5/);
  await p.getByLabel('Select positions').fill('3');
  await p.getByRole('button', { name: 'Select', exact: true }).click();
  await p.getByRole('button', { name: 'Delete selected' }).click();
  await expect.poll(() => p.locator('.organizer li').count()).toBe(4);
  await p.getByRole('button', { name: 'Apply' }).click();
  await expect
    .poll(() => p.locator('.progress-box .badge').textContent(), { timeout: 60_000 })
    .toBe('succeeded');
  const result = await downloadResult(p);
  execFileSync('qpdf', ['--check', result]);
  const before = pageTexts(source);
  expect(pageTexts(result)).toEqual([before[3], before[3], before[0], before[1]]);
  expect(pageRotations(result)).toEqual([0, 90, 90, 90]);
}
