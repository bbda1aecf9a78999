// The merge in one qpdf process (forkserver/merge.cc): the pages written as `qpdf --empty --pages`
// writes them, and from the same opened inputs their page counts and, when asked, their outlines.
import { QuireError } from '../../errors/quire-error.js';
import { abs, JSON_MAX_BYTES, type QpdfCall, type QpdfProgram } from './run-qpdf.js';

export interface MergePart {
  path: string;
  /** qpdf page range (see toQpdfRange); all pages when omitted. */
  pages?: string;
}

/** What the merge read of one input: its page count and, with `outlines`, qpdf JSON v2 "outlines". */
export interface MergedInput {
  pages: number;
  /** Items as qpdf's JSON v2 "outlines", every destination resolved to `destpageposfrom1`. */
  outlines?: unknown[];
}

/** The name the forkserver's child runs the merge under instead of qpdf's command line (run.c). */
const MERGE_PROGRAM = 'quire-qpdf-merge';

export function mergeInOneRun(qpdf: QpdfProgram) {
  return {
    /**
     * Whether `mergeOnce` can run: it lives in the qpdf forkserver. Without one the merge tool reads
     * its inputs in runs of their own; a forkserver that cannot start fails `engine_unavailable`.
     */
    mergesOnce: qpdf.forkServer !== null,

    /** Merges `parts` into `output` in one run; returns each input's page count (and outline). */
    async mergeOnce(
      parts: readonly MergePart[],
      output: string,
      options: { outlines: boolean },
      call: QpdfCall,
    ): Promise<MergedInput[]> {
      const args = [
        ...(options.outlines ? ['--outlines'] : []),
        abs(output),
        ...parts.flatMap((part) => [abs(part.path), part.pages ?? '']),
      ];
      const result = await qpdf.exec(
        args,
        { ...call, password: undefined },
        { stdout: true, progress: true, stdoutMaxBytes: JSON_MAX_BYTES, program: MERGE_PROGRAM },
      );
      if (result.stdoutTruncated) {
        throw new QuireError(
          'engine_memory_exceeded',
          `The inputs' outlines are larger than the ${JSON_MAX_BYTES / 1024 ** 2} MB the server reads`,
          { extras: { limit_bytes: JSON_MAX_BYTES } },
        );
      }
      // Progress lines come first; the JSON (indented as qpdf writes it) starts at a line's first `{`.
      const { files } = JSON.parse(result.stdout.slice(result.stdout.search(/^\{/m))) as {
        files: MergedInput[];
      };
      // No page count of the output after warnings (qpdf.verifyWritten): the run wrote the pages it
      // counted and copied, and a selection or a file without pages is refused by the caller.
      return files;
    },
  };
}
