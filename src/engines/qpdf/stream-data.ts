// Stream data in and out of qpdf for tools that rewrite some streams themselves (compress's image
// pass): the raw bytes of chosen streams as files, and those streams replaced in one optimised write.
import { QuireError } from '../../errors/quire-error.js';
import { removeSecretFile, writeSecretFile } from '../../process/work-dir.js';
import { abs, JSON_MAX_BYTES, type QpdfCall, type QpdfProgram } from './run-qpdf.js';

/** A stream as qpdf JSON v2 writes it: its dictionary (qpdf's JSON encoding) and its data file. */
export interface StreamFile {
  dict: Record<string, unknown>;
  datafile: string;
}

type StreamDump = { qpdf: [{ maxobjectid: number }, Record<string, { stream?: StreamFile }>] };

/** The lossless rewrite `optimize` does, applied in the same run as a stream update. */
const OPTIMIZE = [
  '--object-streams=generate',
  '--compress-streams=y',
  '--recompress-flate',
  '--compression-level=9',
];

export function streamData({ exec, writeCounted }: QpdfProgram) {
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
        const args = ['--json=2', '--json-key=qpdf', `@${argFile}`, '--json-stream-data=file'];
        const dump = [`--json-stream-prefix=${abs(prefix)}`, '--decode-level=none', abs(input)];
        const result = await exec([...args, ...dump], call, { stdout: true, stdoutMaxBytes: JSON_MAX_BYTES });
        if (result.stdoutTruncated) throw new QuireError('engine_failed', 'qpdf stream list is too large');
        const json = JSON.parse(result.stdout) as StreamDump;
        const streams = new Map<string, StreamFile>();
        for (const [key, value] of Object.entries(json.qpdf[1])) {
          const id = /^obj:(\d+ \d+) R$/.exec(key)?.[1];
          if (id && value.stream?.datafile) streams.set(id, value.stream);
        }
        return streams;
      } finally {
        await removeSecretFile(argFile);
      }
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
