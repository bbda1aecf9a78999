// How qpdf opens an upload for the tool runner: the pages it really finds, whether it had to
// reconstruct the file to get there, and a rewritten copy that every other engine can read.
import { QuireError } from '../../errors/quire-error.js';
import type { RunResult } from '../../process/runner.js';
import { removeSecretFile, writeSecretFile } from '../../process/work-dir.js';
import { QPDF_EXIT, QPDF_RECOVERED, QPDF_TRAILER_WITHOUT_SIZE } from './failure.js';
import { abs, JSON_MAX_BYTES, type QpdfCall, type QpdfProgram } from './run-qpdf.js';

export interface Opening {
  /** Pages found by walking the page tree. */
  pages: number;
  /**
   * A plain rewrite would keep a fault that the other engines trip on: the root's /Count disagrees
   * with the walk, or the trailer lacks /Size (qpdf 11.3 writes a reconstructed trailer as found).
   */
  mendsStructure: boolean;
  /**
   * The file needs the rewritten copy: qpdf reconstructed its xref or stream lengths, or the
   * root's /Count disagrees with the pages it holds (poppler trusts /Count and fails on it).
   */
  damaged: boolean;
}

/**
 * The opening's verdict from a qpdf run that read the file: `declared` is the root's /Count (NaN
 * when it is not a plain number), `pages` the pages the walk found.
 */
export function openingOf(result: RunResult, declared: number, pages: number): Opening {
  const recovered = result.exitCode === QPDF_EXIT.warnings && QPDF_RECOVERED.test(result.stderrTail);
  const lacksSize = QPDF_TRAILER_WITHOUT_SIZE.test(result.stderrTail);
  return {
    pages,
    damaged: recovered || declared !== pages,
    mendsStructure: declared !== pages || lacksSize,
  };
}

type Dict = Record<string, unknown>;
type QpdfObjects = { qpdf: [{ maxobjectid: number }, Record<string, { value?: unknown }>] };

const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v);
const REF = /^(\d+) (\d+) R$/;

export function qpdfOpening(qpdf: QpdfProgram) {
  const objects = async (input: string, ids: readonly string[], call: QpdfCall) => {
    const args = ['--json=2', '--json-key=qpdf', ...ids.map((id) => `--json-object=${id}`), abs(input)];
    const result = await qpdf.exec(args, call, { stdout: true, stdoutMaxBytes: JSON_MAX_BYTES });
    if (result.stdoutTruncated) throw new QuireError('pdf_corrupt', 'The PDF catalog is too large to read');
    return JSON.parse(result.stdout) as QpdfObjects;
  };
  const valueIn = (json: QpdfObjects, ref: string): Dict | undefined => {
    const value = json.qpdf[1][ref === 'trailer' ? 'trailer' : `obj:${ref}`]?.value;
    return isDict(value) ? value : undefined;
  };
  const idOf = (ref: unknown) => {
    const m = typeof ref === 'string' ? REF.exec(ref) : null;
    return m ? `${m[1]},${m[2]}` : undefined;
  };

  return {
    /** `--show-npages` (the root's /Count) and `--show-pages` (the walk) in one run. */
    async open(input: string, call: QpdfCall): Promise<Opening> {
      const result = await qpdf.exec(['--show-npages', '--show-pages', abs(input)], call, { stdout: true });
      if (result.stdoutTruncated)
        throw new QuireError('pdf_corrupt', 'The PDF page list is too large to read');
      const declared = Number(/^(-?\d+)$/m.exec(result.stdout)?.[1]);
      const pages = result.stdout.match(/^page \d+: /gm)?.length ?? 0;
      return openingOf(result, declared, pages);
    },

    /**
     * The cheap repair of a damaged file that `mendsStructure` does not flag: a plain rewrite (reading reconstructs
     * the xref and recovers stream lengths; writing makes fresh offsets, lengths and xref). Exit 3 is
     * the input's damage reported again, so the copy is not checked here: the caller checks it
     * (tools/framework/written-pdf.ts, without a qpdf run) and takes `repairCopy` when it does not hold.
     */
    async rewriteDamaged(input: string, output: string, call: QpdfCall): Promise<void> {
      await qpdf.exec([abs(input), abs(output)], call, { progress: true });
    },

    /**
     * Writes a copy of a damaged file that the other engines read as qpdf does. A plain rewrite
     * is not enough in two measured cases (qpdf 11.3): a reconstructed trailer without /Size is
     * written without /Size again (its writer only fills in a /Size key that exists), and the root's
     * wrong /Count is kept. Both are set in a JSON update applied while rewriting. Returns the
     * copy's page count (the write's own check counts them when qpdf warned, else they are counted
     * here), or undefined (and writes nothing useful) for an encrypted file, whose trailer must not
     * be rebuilt.
     */
    async repairCopy(
      input: string,
      output: string,
      pages: number,
      call: QpdfCall,
    ): Promise<number | undefined> {
      const head = await objects(input, ['trailer'], call);
      const trailer = valueIn(head, 'trailer');
      if (!trailer || trailer['/Encrypt'] !== undefined) return undefined;
      const rootId = idOf(trailer['/Root']);
      const root = rootId
        ? valueIn(await objects(input, [rootId], call), String(trailer['/Root']))
        : undefined;
      const pagesId = idOf(root?.['/Pages']);
      const changed: Record<string, { value: unknown }> = {
        // The value is a placeholder: qpdf writes the real size into the key it finds.
        trailer: { value: { ...trailer, '/Size': 0 } },
      };
      if (pagesId && root) {
        const ref = String(root['/Pages']);
        const tree = valueIn(await objects(input, [pagesId], call), ref);
        if (tree) changed[`obj:${ref}`] = { value: { ...tree, '/Count': pages } };
      }
      const header = {
        jsonversion: 2,
        pushedinheritedpageresources: false,
        calledgetallpages: false,
        maxobjectid: head.qpdf[0].maxobjectid,
      };
      const update = await writeSecretFile(
        call.workDir,
        JSON.stringify({ qpdf: [header, changed] }),
        'repair',
      );
      let counted: number | undefined;
      try {
        const args = [abs(input), `--update-from-json=${abs(update)}`, abs(output)];
        counted = await qpdf.verifyWritten(await qpdf.exec(args, call, { progress: true }), output, call);
      } finally {
        await removeSecretFile(update);
      }
      return counted ?? qpdf.pageCount(output, call);
    },
  };
}
