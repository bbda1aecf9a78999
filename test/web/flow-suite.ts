// Every flow of issue 28's first "what must hold" item, as one suite that app.test.ts runs at `/` and
// sub-path.test.ts runs under `/quire/` behind a reverse proxy: the same code both times, so the
// sub-path cannot fall behind. The canceled job's axe findings come back from its flow.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { corpusFile } from '../support/corpus.js';
import { textPdf } from '../support/heavy-fixtures.js';
import type { openPage } from './browser.js';
import {
  compressFlow,
  mergeFlow,
  overLimitFlow,
  pageRangeFlow,
  protectFlow,
  signInFlow,
  signInWithLink,
} from './flows.js';
import { cancelFlow, ocrProgressFlow, tusResumeFlow } from './job-flows.js';
import { organizerFlow } from './organizer-flow.js';
import { recipeBatchFlow } from './recipe-flow.js';

export interface FlowSetup {
  /** The app's address, ending in `/`; the API is under it at `api/v1/`. */
  app: string;
  key: string;
  page(options?: Parameters<typeof openPage>[1]): Promise<Page>;
}

export function describeFlows(where: string, setup: () => FlowSetup, options: { tus: boolean }): void {
  const at = (path: string) => corpusFile(path);
  describe(`every flow ${where}`, () => {
    it('signs in with the key (session, or remembered) and with the sign-in link', async () => {
      const { app, key, page } = setup();
      await signInFlow(page, app, key);
    });

    it('compresses a corpus PDF and downloads a smaller file', async () => {
      const { app, key, page } = setup();
      const p = await page();
      await signInWithLink(p, app, key);
      await compressFlow(p, app, at('ocrmypdf__c02-22.pdf'));
    });

    it('merges three files in the order set in the drop zone', async () => {
      const { app, key, page } = setup();
      const p = await page();
      await signInWithLink(p, app, key);
      await mergeFlow(p, app, [
        textPdf('alpha.pdf', ['ALPHA']),
        textPdf('bravo.pdf', ['BRAVO']),
        textPdf('charlie.pdf', ['CHARLIE']),
      ]);
    });

    it('reorders, rotates, deletes and duplicates pages and page ranges in the organizer, checked with qpdf', async () => {
      const { app, key, page } = setup();
      await organizerFlow(await page(), app, key, at('pypdf-samples__pdflatex-4-pages.pdf'));
    });

    it('protects with a password found in the job’s request and in no other request, answer or storage', async () => {
      const { app, key, page } = setup();
      await protectFlow(await page(), app, key, at('pdf20ex__Simple_PDF_2.0_file.pdf'));
    });

    it('saves a three-step recipe on the server, reloads, runs it on two files as a batch and downloads the ZIP', async () => {
      const { app, key, page } = setup();
      await recipeBatchFlow(await page(), app, key, [textPdf('r1.pdf', ['ONE']), textPdf('r2.pdf', ['TWO'])]);
    });

    it('shows OCR progress moving, in a live region, up to the result', async () => {
      const { app, key, page } = setup();
      await ocrProgressFlow(await page(), app, key);
    });

    it('cancels a running job (the canceled screen axe-clean, light and dark)', async () => {
      const { app, key, page } = setup();
      expect(await cancelFlow(await page(), app, key)).toEqual([]);
    });

    it('shows a malformed page range next to its field before sending anything', async () => {
      const { app, key, page } = setup();
      await pageRangeFlow(await page(), app, key);
    });

    it('refuses a file over the plan limit before uploading a byte', async () => {
      const { app, key, page } = setup();
      await overLimitFlow(await page(), app, key);
    });

    it.runIf(options.tus)(
      'uploads a 300 MB file over tus and, after a reload at half-way, resumes where the server stopped',
      async () => {
        const { app, key, page } = setup();
        await tusResumeFlow(await page(), app, key);
      },
      240_000,
    );
  });
}
