// merge's opening beside the qpdf merge (inputs.early, the one-run merge) over real HTTP and real qpdf: a clean job
// runs the merge as its one qpdf run (the opening too) and no opening pass, and every input the opening
// would look at more closely (damaged, encrypted, unreadable, past the page limit) or a page selection
// sends the job to the runner's opening, ending as it did before: the same result or the same code.
import { describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { pageCount, pageText, qpdfCheckPasses, toFile } from '../support/pdf.js';
import { outlineTitles } from '../support/pdf-checks.js';
import { startTestServer } from '../support/server.js';
import { useTestServer } from '../support/use-test-server.js';

const quire = useTestServer();

const fourPages = corpusFile('pypdf-samples__pdflatex-4-pages.pdf'); // 4 pages, no bookmarks
const outline = corpusFile('pypdf-samples__pdflatex-outline.pdf'); // 4 pages, 9 bookmarks
const tracemonkey = corpusFile('pdfjs__tracemonkey.pdf'); // 14 pages
/** qpdf reads it only by reconstructing its xref ("file is damaged"); 8 pages. */
const repairable = corpusFile('pdfplumber__issue-848.pdf');
const userPassword = corpusFile('qpdf__enc-R3-V2-U-view-O-master.pdf');
/** Encrypted with an owner password only: qpdf opens it without one. 30 pages. */
const ownerOnly = corpusFile('qpdf__enc-XI-R6-V5-O-master.pdf');
const unreadable = corpusFile('pdflib__missing_xref_trailer_dict.pdf');

/** qpdf runs so far, from the engines' duration histogram (what the bench reads too). */
async function qpdfRuns(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('quire_engine_run_seconds_count{engine="qpdf"}'));
  return Number(line?.split(' ').at(-1) ?? 0);
}

/**
 * The count once it holds still for 100 ms: a failed job's last qpdf run can be counted just after
 * the job's end is answered, and must not be taken for the next job's.
 */
async function settledQpdfRuns(url: string): Promise<number> {
  let last = await qpdfRuns(url);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await qpdfRuns(url);
    if (now === last) return now;
    last = now;
  }
}

/** Runs a merge job and counts the qpdf runs it took (jobs run one at a time in these tests). */
async function merge(
  files: string[],
  options: Record<string, unknown> = {},
  c = quire.client,
  url = quire.server.url,
) {
  const before = await settledQpdfRuns(url);
  const job = await c.run({ tool: 'merge', files, options });
  return { job, runs: (await qpdfRuns(url)) - before };
}

async function mergedFile(id: string): Promise<string> {
  const { body } = await quire.client.download(id);
  return toFile(body);
}

describe('merge opened beside the qpdf merge', () => {
  it('keep: the merge is the one qpdf run, no opening pass; pages and bookmarks as before', async () => {
    const { job, runs } = await merge([tracemonkey, outline, fourPages]);
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    expect(runs).toBe(1);
    expect(job.result).toMatchObject({ pages: 14 + 4 + 4, files: 3 });
    const file = await mergedFile(job.id);
    expect(pageCount(file)).toBe(22);
    expect(qpdfCheckPasses(file)).toBe(true);
    expect(pageText(file, 15)).toEqual(pageText(outline, 1));
    expect((await outlineTitles(file)).length).toBe(9);
  });

  it('none: the merge is the one qpdf run, its page counts from the same run', async () => {
    const { job, runs } = await merge([fourPages, tracemonkey], { bookmarks: 'none' });
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    expect(runs).toBe(1);
    const file = await mergedFile(job.id);
    expect(pageCount(file)).toBe(18);
    expect(await outlineTitles(file)).toEqual([]);
  });

  it('an owner-password-only input opens without a password, as in the opening', async () => {
    const { job, runs } = await merge([fourPages, ownerOnly], { bookmarks: 'none' });
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    // The byte scan sees encryption, so the runner opens both files (two runs); the encryption
    // rule's two (docs/tools.md: qpdf confirms the encryption, writes the decrypted copy); the merge.
    expect(runs).toBe(2 + 2 + 1);
    // Only the later file was encrypted: the merged file cannot keep it and says so.
    expect(job.result?.encryption).toBe('removed');
    expect(pageCount(await mergedFile(job.id))).toBe(34);
  });
});

describe('merge sent back to the runner’s opening', () => {
  it.each(['keep', 'none'])(
    'bookmarks %s: a damaged input is repaired by the opening and merged, after the one-run merge gave up',
    async (bookmarks) => {
      const { job, runs } = await merge([fourPages, repairable], { bookmarks });
      expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
      // The merge given up, then the opening of both, the repair and the merge again.
      expect(runs).toBeGreaterThan(1 + 2 + 1);
      const file = await mergedFile(job.id);
      expect(pageCount(file)).toBe(4 + 8);
      expect(qpdfCheckPasses(file)).toBe(true);
    },
  );

  it.each(['keep', 'none'])(
    'bookmarks %s: an input with a user password fails pdf_encrypted',
    async (bookmarks) => {
      const { job } = await merge([fourPages, userPassword], { bookmarks });
      expect(job.error?.code).toBe('pdf_encrypted');
    },
  );

  it('an unreadable input fails pdf_corrupt, an earlier one in upload order before a later encrypted one', async () => {
    const { job } = await merge([fourPages, unreadable, userPassword]);
    expect(job.error?.code).toBe('pdf_corrupt');
    const reversed = await merge([userPassword, unreadable, fourPages], { bookmarks: 'none' });
    expect(reversed.job.error?.code).toBe('pdf_encrypted');
  });

  it('a page selection past the end of its file fails page_range_invalid', async () => {
    const { job } = await merge([fourPages, tracemonkey], { pages_per_file: ['', '2-15'] });
    expect(job.error?.code).toBe('page_range_invalid');
  });

  it('a page selection is resolved against the opened count', async () => {
    const { job } = await merge([tracemonkey, fourPages], { pages_per_file: ['z', 'r2-r1'] });
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    const file = await mergedFile(job.id);
    expect(pageCount(file)).toBe(3);
    expect(pageText(file, 1)).toEqual(pageText(tracemonkey, 14));
    expect(pageText(file, 3)).toEqual(pageText(fourPages, 4));
  });

  it.each(['keep', 'none'])(
    'bookmarks %s: inputs past the page limit fail limit_pages_exceeded with the total at the file that passes it',
    async (bookmarks) => {
      const limited = await startTestServer({ QUIRE_JOB_MAX_PAGES: '15' });
      try {
        const c = new Client(limited.url, (await limited.newAccount()).key);
        const { job } = await merge([tracemonkey, fourPages, unreadable], { bookmarks }, c, limited.url);
        expect(job.error?.code).toBe('limit_pages_exceeded');
        expect(job.error?.message).toContain('18 pages');
        const under = await merge([fourPages, outline], { bookmarks }, c, limited.url);
        expect(under.job.status, JSON.stringify(under.job.error)).toBe('succeeded');
        expect(under.runs).toBe(1);
      } finally {
        await limited.close();
      }
    },
  );
});
