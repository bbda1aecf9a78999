// Giving a file another file's encryption as it is: qpdf's `--copy-encryption` copies the encryption
// dictionary (its R/V, permissions and the O/U entries, so both passwords, the owner's included
// without knowing it) and the /ID the key derives from. The password travels in a 0600 job file.
import { removeSecretFile, writeSecretFile } from '../../process/work-dir.js';
import { abs, type QpdfCall, type QpdfProgram } from './run-qpdf.js';

/** An encrypted file's parameters as `qpdf --show-encryption` and its JSON name them. */
export interface EncryptionParameters {
  R: number;
  V: number;
  P: number;
}

interface EncryptJson {
  encrypt?: { encrypted?: boolean; parameters?: { R?: number; V?: number; P?: number } };
}

export function encryptionCopying({ exec, verifyWritten }: QpdfProgram) {
  return {
    /** The file's encryption (opened with `call.password`), or undefined when it has none. */
    async encryptionOf(input: string, call: QpdfCall): Promise<EncryptionParameters | undefined> {
      const result = await exec(['--json=2', '--json-key=encrypt', abs(input)], call, { stdout: true });
      const { encrypt } = JSON.parse(result.stdout) as EncryptJson;
      const p = encrypt?.parameters;
      if (!encrypt?.encrypted || p?.R === undefined || p.V === undefined || p.P === undefined)
        return undefined;
      return { R: p.R, V: p.V, P: p.P };
    },

    /**
     * Writes `input` (unencrypted) to `output` with `from`'s encryption; `call.password` is `from`'s
     * user or owner password (none for a file that opens without one). `linearize`: the rewrite
     * linearizes again (a plain qpdf write drops the input's linearization).
     */
    async copyEncryption(
      input: string,
      from: string,
      output: string,
      call: QpdfCall,
      options: { linearize?: boolean } = {},
    ): Promise<void> {
      const job = {
        inputFile: abs(input),
        outputFile: abs(output),
        copyEncryption: abs(from),
        encryptionFilePassword: call.password ?? '',
        ...(options.linearize ? { linearize: '' } : {}),
      };
      const jobFile = await writeSecretFile(call.workDir, JSON.stringify(job), 'job');
      try {
        const result = await exec([`--job-json-file=${jobFile}`], { ...call, password: undefined });
        await verifyWritten(result, output, call, call.password);
      } finally {
        await removeSecretFile(jobFile);
      }
    },
  };
}
