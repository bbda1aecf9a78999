// Options typed per tool name from the generated schema: `compress` takes CompressOptions (its `level`
// a union), so a wrong option is a compile error. A tool the schema does not know (a server newer than
// this package) still works, with its options as a plain object.
import type { components, operations } from './generated/schema.js';

type Schemas = components['schemas'];
type CreateJobForm = NonNullable<operations['createJob']['requestBody']>['content']['multipart/form-data'];

/** The tools this package was generated against. */
export type ToolName = NonNullable<CreateJobForm['tool']>;

/** `page-numbers` → `PageNumbers`: how the document names each tool's options component. */
type Pascal<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Capitalize<Head>}${Pascal<Tail>}`
  : Capitalize<S>;

/** The options of `T`: its schema component when known, any JSON object otherwise. */
export type ToolOptions<T extends string> = `${Pascal<T>}Options` extends keyof Schemas
  ? Schemas[`${Pascal<T>}Options`]
  : Record<string, unknown>;

/** A tool name, known (with completion) or not. */
export type AnyToolName = ToolName | (string & {});

/**
 * One step of a chained job: each step's options are typed by its own tool. Only the tools this
 * package knows: a catch-all member would accept any options for them too (`string` takes every
 * name), so a step of a newer server's tool is written `{ tool: 'new-tool', options } as Step`.
 */
export type Step = { [T in ToolName]: { tool: T; options?: ToolOptions<T> } }[ToolName];
