// pyHanko adapter: PAdES signing and signature validation through driver.py, run per call by the
// subprocess runner from pyHanko's own venv. The job, secrets included, travels in a 0600 file.
import { fileURLToPath } from 'node:url';
import { removeSecretFile, writeSecretFile } from '../../process/work-dir.js';
import type { EngineCallOptions, EngineDefaults } from '../call-options.js';
import { runEngine, toRunOptions } from '../call-options.js';
import { pyhankoOutcome } from './failure.js';
import { pinTsa, type TimestampAuthority } from './timestamp.js';

/** scripts/setup.sh installs pyHanko into this venv, beside the repository (src/ and dist/ alike). */
export const PYHANKO_VENV = fileURLToPath(new URL('../../../.venv/pyhanko', import.meta.url));
export const PYHANKO_PYTHON = `${PYHANKO_VENV}/bin/python`;
/** Beside this module in src/ and, copied by the build, in dist/ (scripts/copy-python.mjs). */
const DRIVER = fileURLToPath(new URL('./driver.py', import.meta.url));

/** pyHanko's DocMDP permissions (ISO 32000-1 §12.8.2.2), by the names the `sign` tool uses. */
export type Certification = 'no_changes' | 'form_filling' | 'annotations';

export interface SignSpec {
  /** Base64 of the PKCS#12 bundle and its password: secrets, only ever written to the job file. */
  pkcs12: string;
  password: string;
  reason?: string;
  location?: string;
  contact?: string;
  certify?: Certification;
  /** A visible signature: 1-based page, box [x1, y1, x2, y2] in points, optional literal text. */
  appearance?: { page: number; box: readonly number[]; text?: string };
}

type Name = { common_name: string | null; distinguished_name: string };

export interface SignResult {
  field: string;
  signer: Name;
  level: 'B-B' | 'B-T';
}

/** One signature as driver.py reports it; `null`s where pyHanko could not evaluate it (`problem`). */
export interface SignatureReport {
  field: string;
  kind: 'signature' | 'document_timestamp';
  signer: Name | null;
  issuer: Name | null;
  signing_time: string | null;
  timestamp: { time: string | null; valid: boolean } | null;
  integrity: { digest_valid: boolean | null; signature_valid: boolean };
  covers_whole_document: boolean | null;
  coverage: string | null;
  modifications: 'none' | 'form_filling' | 'annotations' | 'other' | null;
  docmdp_ok: boolean | null;
  certification: Certification | null;
  chain: 'trusted' | 'untrusted' | 'unknown' | 'revoked';
  md_algorithm: string | null;
  reason: string | null;
  /** Why the signature could not be evaluated (malformed CMS, mismatched signer), else null. */
  problem: string | null;
}

export interface PyhankoOptions {
  /** From the netns probe: runs that need no network get none. */
  isolateNetwork: boolean;
  /** Set when the operator configured QUIRE_SIGN_TSA_URL: signatures become PAdES B-T. */
  timestampAuthority?: TimestampAuthority;
}

export function createPyhanko(defaults: EngineDefaults, opts: PyhankoOptions) {
  const exec = async (command: 'sign' | 'verify', job: object, call: EngineCallOptions, network: boolean) => {
    const jobFile = await writeSecretFile(call.workDir, JSON.stringify(job), 'pyhanko-job');
    try {
      const result = await runEngine(
        defaults,
        PYHANKO_PYTHON,
        [DRIVER, command, jobFile],
        toRunOptions(defaults, call, {
          captureStdout: true,
          ...(opts.isolateNetwork && !network ? { network: false } : {}),
        }),
      );
      return pyhankoOutcome(result);
    } finally {
      await removeSecretFile(jobFile);
    }
  };

  return {
    /** Whether signatures get a time-stamp token (B-T) on this server. */
    timestamps: opts.timestampAuthority !== undefined,

    /** Signs `input` into `output` (an incremental update, earlier signatures stay valid). */
    async sign(input: string, output: string, spec: SignSpec, call: EngineCallOptions): Promise<SignResult> {
      const tsa = opts.timestampAuthority;
      const timestamp = tsa ? await pinTsa(tsa) : null;
      const job = { ...spec, input, output, timestamp };
      return (await exec('sign', job, call, timestamp !== null)) as SignResult;
    },

    /** One report per signature field in `input`; `trustRoots` are PEM certificates (may be empty). */
    async verify(input: string, trustRoots: readonly string[], call: EngineCallOptions) {
      const report = await exec('verify', { input, trust_roots: trustRoots }, call, false);
      return (report as { signatures: SignatureReport[] }).signatures;
    },
  };
}

export type Pyhanko = ReturnType<typeof createPyhanko>;
