// Stream data in and out of qpdf for tools that rewrite some streams themselves (compress's image
// pass): the raw bytes of chosen streams as files, and those streams replaced in one optimised write.
import { QuireError } from '../../errors/quire-error.js';
import { removeSecretFile, writeSecretFile } from '../../process/work-dir.js';
import { type Opening, openingOf } from './opening.js';
import { abs, JSON_MAX_BYTES, type QpdfCall, type QpdfProgram } from './run-qpdf.js';

/** A stream as qpdf JSON v2 writes it: its dictionary (qpdf's JSON encoding) and its data file. */
export interface StreamFile {
  dict: Record<string, unknown>;
  datafile: string;
}

type StreamDump = {
  qpdf: [{ maxobjectid: number }, Record<string, { stream?: StreamFile; value?: unknown }>];
  pages?: unknown[];
};

/** The dumped streams by `N G`. */
function streamsOf(json: StreamDump): Map<string, StreamFile> {
  const streams = new Map<string, StreamFile>();
  for (const [key, value] of Object.entries(json.qpdf[1])) {
    const id = /^obj:(\d+ \d+) R$/.exec(key)?.[1];
    if (id && value.stream?.datafile) streams.set(id, value.stream);
  }
  return streams;
}

/** The root's /Count as the dump holds it: NaN unless trailer, root and page tree are plain. */
function declaredCount(json: StreamDump): number {
  const objects = json.qpdf[1];
  const dict = (key: unknown) => {
    const value = typeof key === 'string' ? objects[key]?.value : undefined;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  };
  const root = dict(`obj:${dict('trailer')?.['/Root']}`);
  const count = dict(`obj:${root?.['/Pages']}`)?.['/Count'];
  return typeof count === 'number' ? count : Number.NaN;
}

/**
 * The lossless rewrite (`optimize` in qpdf.ts): object streams, every stream recompressed at the
 * highest zlib level; also applied in the same run as a stream update.
 */
export const OPTIMIZE = [
  '--object-streams=generate',
  '--compress-streams=y',
  '--recompress-flate',
  '--compression-level=9',
];

export function streamData({ exec, writeCounted }: QpdfProgram) {
  /** `--json=2` with `keys`, stream data as stored in `<prefix>-N` files, dictionaries on stdout. */
  const dump = async (keys: string[], input: string, prefix: string, call: QpdfCall) => {
    const args = ['--json=2', ...keys, '--json-stream-data=file', `--json-stream-prefix=${abs(prefix)}`];
    const result = await exec([...args, '--decode-level=none', abs(input)], call, {
      stdout: true,
      stdoutMaxBytes: JSON_MAX_BYTES,
    });
    if (result.stdoutTruncated) throw new QuireError('engine_failed', 'qpdf stream list is too large');
    return { json: JSON.parse(result.stdout) as StreamDump, result };
  };

  return {
    /**
     * Writes the stored bytes (`--decode-level=none`: a JPEG stays the JPEG it is) of `objects`
     * (`N G`; every stream when empty) as `<prefix>-N` files and returns each one's dictionary by
     * `N G`. The object list travels in an argument file; only dictionaries come back on stdout,
     * bounded by JSON_MAX_BYTES.
     */
    async rawStreams(
      input: string,
      objects: readonly string[],
      prefix: string,
      call: QpdfCall,
    ): Promise<Map<string, StreamFile>> {
      const list = objects.map((o) => `--json-object=${o.replace(' ', ',')}`).join('\n');
      const argFile = await writeSecretFile(call.workDir, list, 'objects');
      try {
        const { json } = await dump(['--json-key=qpdf', `@${argFile}`], input, prefix, call);
        return streamsOf(json);
      } finally {
        await removeSecretFile(argFile);
      }
    },

    /**
     * rawStreams of every stream, with the opening (opening.ts) read from the same run: the pages
     * qpdf walks (`--json-key=pages`), the root's /Count from the dumped objects, and qpdf's
     * warnings. A tool that opens beside its work (compress) saves the opening's own run.
     */
    async openWithStreams(
      input: string,
      prefix: string,
      call: QpdfCall,
    ): Promise<{ opening: Opening; streams: Map<string, StreamFile> }> {
      const { json, result } = await dump(['--json-key=qpdf', '--json-key=pages'], input, prefix, call);
      const opening = openingOf(result, declaredCount(json), json.pages?.length ?? 0);
      return { opening, streams: streamsOf(json) };
    },

    /**
     * Replaces streams from a qpdf JSON v2 update file (each with a `datafile`) and writes the
     * result with the lossless optimisation, in one qpdf run instead of an update and a rewrite.
     * Returns the written file's page count when qpdf warned (a damaged input) and it was counted.
     */
    replaceStreamsOptimized(
      input: string,
      updateFile: string,
      output: string,
      call: QpdfCall,
    ): Promise<number | undefined> {
      return writeCounted([abs(input), `--update-from-json=${abs(updateFile)}`, ...OPTIMIZE], output, call);
    },
  };
}
