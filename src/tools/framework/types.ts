// The declarative shape every tool file exports; the catalogue, validation and OpenAPI derive from it.
import type { Static, TObject } from '@sinclair/typebox';
import type { Engines } from '../../engines/index.js';
import type { EngineName, EngineStatus } from '../../engines/types.js';
import type { FieldError } from '../../errors/quire-error.js';
import type { ToolProgress } from './progress.js';

export type InputType =
  | 'application/pdf'
  | 'image/jpeg'
  | 'image/png'
  | 'image/tiff'
  | 'image/webp'
  | 'image/gif'
  // Office documents (office-to-pdf); x-ole-storage is a doc/xls/ppt whose kind the head does not show.
  | 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
  | 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'
  | 'application/vnd.openxmlformats-officedocument.presentationml.presentation'
  | 'application/vnd.oasis.opendocument.text'
  | 'application/vnd.oasis.opendocument.spreadsheet'
  | 'application/vnd.oasis.opendocument.presentation'
  | 'application/msword'
  | 'application/vnd.ms-excel'
  | 'application/vnd.ms-powerpoint'
  | 'application/x-ole-storage'
  | 'application/rtf'
  | 'text/plain'
  | 'text/csv'
  // html-to-pdf: one page, or a ZIP of a page with its assets.
  | 'text/html'
  | 'application/zip';

/** One input file as the tool sees it: a private copy on local disk inside the job's work directory. */
export interface ToolInput {
  path: string;
  /** Client-supplied file name; display only, never used to build a path. */
  name: string;
  size: number;
  contentType: InputType;
  /**
   * Set by the runner's opening when qpdf could read the upload only by repairing it: `path` is
   * then qpdf's rewritten copy and this is the upload as received.
   */
  repairedFrom?: string;
}

export interface ToolLimits {
  maxPages: number;
  timeoutMs: number;
  memoryBytes: number;
  /**
   * The plan's bytes for the job's result (`max_output_bytes`): a tool that writes part after part
   * from one input (split ranges) stops once its parts pass it, instead of after the last.
   */
  maxOutputBytes?: number;
}

/** What the runner hands over for one job: its options and inputs, a work dir and what it may use. */
export interface RunContext<O> {
  options: O;
  inputs: ToolInput[];
  /** A private directory for this job, removed after the job; write outputs here. */
  workDir: string;
  signal: AbortSignal;
  progress: ToolProgress;
  engines: Engines;
  limits: ToolLimits;
  /**
   * An early run (`inputs.early`): qpdf has not opened the inputs. Engine calls made with
   * `engineCall` then give up on an input qpdf complains about (InputNeedsOpeningError), and the
   * runner opens it properly and runs the tool again.
   */
  quickOpened?: boolean;
  /**
   * The password a later step of a job opens its input with: the one the chain already knows
   * (protect's user password, or the first step's input password its output kept). Undefined on the
   * first step, which takes the `password` option.
   */
  inputPassword?: string;
  /**
   * The account the job belongs to. An engine may keep state warm for that account's next job
   * (Chromium keeps a wiped tab), never for another account's; absent means nothing is kept.
   */
  account?: string;
}

/** What `run` receives: the run context plus what the runner found opening the inputs. */
export interface ToolContext<O> extends RunContext<O> {
  /**
   * The page count of each PDF input the runner opened (`inputs.opens`), in upload order; empty on
   * an early run until the tool asks for them (`openedPages`, `onlyPdf` in inputs.ts).
   */
  pages: readonly number[];
}

export interface ToolInputs<O> {
  minFiles: number;
  /** `'plan'` means the calling account's plan decides (e.g. merge). */
  maxFiles: number | 'plan';
  accepts: readonly InputType[];
  /**
   * `'pdf'`: before `run`, in the tool's `inspect` step, the runner opens every PDF input with qpdf
   * (typed errors for encrypted and damaged files), enforces the page limit on their running
   * total and hands the counts over as `ctx.pages`. Tools that take no PDF, or whose limit is on
   * the pages they produce, leave it out.
   */
  opens?: 'pdf';
  /**
   * The tool may run before qpdf has opened its inputs (unencrypted ones, without a password): its
   * run then asks for the page counts when it needs them (`onlyPdf`, `openedPages`: small clean
   * files are counted in-process, quick-open.ts) or opens the inputs beside its own engine run
   * (`openBeside`, opening-beside.ts), and every engine call gives up on an input qpdf complains
   * about. Whatever the qpdf opening would look at more closely sends the job back to it, and the
   * tool runs again, so the job ends as it would have without the early start. Only a tool whose
   * every read of an unopened input either is such a qpdf run or is checked by one may declare it.
   */
  early?: boolean;
  /** The option whose value the PDFs open with (unlock); without one, encrypted is `pdf_encrypted`. */
  passwordOption?: keyof O & string;
  /**
   * What a PDF input must hold for the tool's work to make sense (fill-form: an AcroForm). The tool
   * itself refuses inputs without it; declared here so catalogue-wide checks that run every
   * published example can pick a sample input that holds it.
   */
  holds?: readonly PdfFeature[];
}

/** A structure inside a PDF that a tool may need (`inputs.holds`). */
export type PdfFeature = 'acroform';

export interface ToolOutput {
  /** A file inside `workDir`. */
  path: string;
  /** Download file name, e.g. `report-compressed.pdf`. */
  name: string;
  contentType: string;
  /** Tool-specific facts merged into `job.result` (e.g. compress: `input_size`, `ratio`). */
  facts?: Record<string, unknown>;
  /**
   * The separate files a ZIP output packs (split's parts, rendered pages), so that the next step of
   * a job runs on each of them rather than on the archive.
   */
  parts?: readonly ToolPart[];
  /**
   * The inputs' page counts: set by a tool that opened them beside its work (`openBeside`), else
   * by the runner from its opening (openAndRun); a step of a job reports them (jobs/steps.ts).
   */
  inputPages?: readonly number[];
  /**
   * The password the output opens with (protect's user password; the input's, when the output kept
   * its encryption), for the next step of a job. Never a fact: it is not shown anywhere.
   */
  password?: string;
}

/** One file of a ZIP output, still on disk in the work dir. */
export interface ToolPart {
  path: string;
  /** Its entry name in the ZIP. */
  name: string;
  contentType: string;
}

export interface ToolDefinition<S extends TObject = TObject> {
  name: string;
  title: string;
  description: string;
  /** The heading the tool is listed under in the catalogue (docs/api.md §3), e.g. `Signatures`. */
  group?: string;
  /** Other words people search for it by (synonyms: `shrink` for compress), for pickers and search. */
  keywords?: readonly string[];
  inputs: ToolInputs<Static<S>>;
  /**
   * JSON Schema (TypeBox) of the options; `additionalProperties: false` always. A function of the
   * engine status when the schema depends on what this server has installed (ocr: its languages).
   */
  options: S | ((engines: readonly EngineStatus[]) => S);
  /**
   * What the tool does with an encrypted input's encryption (encryption-rule.ts). By default the
   * runner hands it a decrypted copy and encrypts its PDF output as the input was. `changes`: setting
   * or removing it is the tool's purpose (protect, unlock), its output is left as written. `drops`:
   * the tool cannot keep it (sign: encrypting again rewrites the file and breaks the signature just
   * made), so the facts say `encryption: "removed"`. `reads`: the tool reads the encrypted file as
   * it is (verify-signatures: a decrypted copy no longer holds the signed bytes; info: it reports the
   * file's own encryption).
   */
  encryption?: 'changes' | 'drops' | 'reads';
  /** Option names whose values are secrets: redacted on the job and never logged. */
  secretOptions?: readonly string[];
  /** `parts`: the types of the files a ZIP output packs (`ToolOutput.parts`), for steps after it. */
  output: { contentType: string; parts?: readonly InputType[] };
  engines: readonly EngineName[];
  /** Named steps and their share of the progress bar; they must sum to 100. */
  steps?: Readonly<Record<string, number>>;
  /**
   * Checks that need more than the options schema (e.g. at most one page selection per input
   * file); run once the upload is complete, before the job exists. Pointers are under `/options`.
   */
  checkRequest?(options: Static<S>, fileCount: number): FieldError[];
  /**
   * Refusals that need no engine, run before the runner opens any input (e.g. watermark: the first
   * file must be the PDF), so they are what a job fails with, whatever its files hold.
   */
  checkJob?(options: Static<S>, inputs: readonly ToolInput[]): void;
  /**
   * The least this tool makes from one input of at least `pages` pages, from its options alone
   * (least-output.ts): declared by tools that multiply pages or files, checked against the plan
   * when a job is created.
   */
  leastOutput?(options: Static<S>, pages: number): { files: number; pages: number };
  run(ctx: ToolContext<Static<S>>): Promise<ToolOutput>;
}

/** Erases the options type so heterogenous tools can live in one list. */
// biome-ignore lint/suspicious/noExplicitAny: the registry holds tools of every options type
export type AnyToolDefinition = ToolDefinition<any>;

/** A definition as one server publishes it: its options schema built for that server's engines. */
export type PublishedTool = Omit<AnyToolDefinition, 'options'> & { options: TObject };

export function defineTool<S extends TObject>(definition: ToolDefinition<S>): ToolDefinition<S> {
  return definition;
}
