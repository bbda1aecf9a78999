// The merge in one qpdf process (forkserver/merge.cc): the pages written as `qpdf --empty --pages`
// writes them, with the bookmarks asked for made from the same opened inputs (merge-bookmarks.cc),
// and each input's page count.
import { QuireError } from '../../errors/quire-error.js';
import { abs, JSON_MAX_BYTES, type QpdfCall, type QpdfProgram } from './run-qpdf.js';

export interface MergePart {
  path: string;
  /** qpdf page range (see toQpdfRange); all pages when omitted. */
  pages?: string;
  /** Its bookmark with `per_file` bookmarks: the file's name without extension. */
  title?: string;
}

/** What the merge read of one input. */
export interface MergedInput {
  pages: number;
}

/**
 * The merged document's bookmarks: none, each input's own re-pointed at the merged pages (`keep`),
 * or those under one bookmark per input titled by its part's `title` (`per_file`).
 */
export type MergeBookmarks = 'keep' | 'per_file' | 'none';

/** The name the forkserver's child runs the merge under instead of qpdf's command line (run.c). */
const MERGE_PROGRAM = 'quire-qpdf-merge';

export function mergeInOneRun(qpdf: QpdfProgram) {
  return {
    /**
     * Whether `mergeOnce` can run: it lives in the qpdf forkserver. Without one the merge tool reads
     * its inputs in runs of their own; a forkserver that cannot start fails `engine_unavailable`.
     */
    mergesOnce: qpdf.forkServer !== null,

    /** Merges `parts` into `output` in one run, bookmarks included; returns each input's page count. */
    async mergeOnce(
      parts: readonly MergePart[],
      output: string,
      options: { bookmarks: MergeBookmarks },
      call: QpdfCall,
    ): Promise<MergedInput[]> {
      const args = [
        ...(options.bookmarks === 'none' ? [] : ['--bookmarks', options.bookmarks]),
        abs(output),
        ...parts.flatMap((part) => [abs(part.path), part.pages ?? '', part.title ?? '']),
      ];
      const result = await qpdf.exec(
        args,
        { ...call, password: undefined },
        { stdout: true, progress: true, stdoutMaxBytes: JSON_MAX_BYTES, program: MERGE_PROGRAM },
      );
      if (result.stdoutTruncated) {
        throw new QuireError(
          'engine_memory_exceeded',
          `The merge's report is larger than the ${JSON_MAX_BYTES / 1024 ** 2} MB the server reads`,
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
