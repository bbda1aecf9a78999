// merge's options and the plan every way of merging shares: each input's selected pages and where
// they land in the merged document, which the bookmarks are re-pointed at.
import { type Static, Type } from '@sinclair/typebox';
import { QuireError } from '../../errors/quire-error.js';
import { fileStem } from '../framework/output-name.js';
import { PageSelectionSchema, resolvePageList } from '../framework/page-selection.js';
import { StringEnum } from '../framework/schema.js';
import type { ToolContext } from '../framework/types.js';
import type { MergedFile } from './merge-outlines.js';

export const options = Type.Object(
  {
    pages_per_file: Type.Optional(
      Type.Array(PageSelectionSchema('Pages of this file, in the order given.'), {
        maxItems: 1000,
        description:
          'One page selection per input, in upload order; missing or empty entries take all pages.',
        examples: [['1-3', '', 'r1']],
      }),
    ),
    bookmarks: Type.Optional(
      StringEnum(['keep', 'per_file', 'none'], {
        default: 'keep',
        description:
          '`keep`: every file’s bookmarks; `per_file`: one bookmark per file (its name) holding that file’s bookmarks; `none`: no bookmarks.',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{}, { pages_per_file: ['1-3', 'r1'], bookmarks: 'per_file' }],
  },
);

export type Ctx = ToolContext<Static<typeof options>>;

export interface Plan {
  pages: number[][];
  files: MergedFile[];
  /** The merge wrote the bookmarks itself (one-run.ts): nothing is left to append. */
  bookmarksWritten?: boolean;
}

export function plan(ctx: Ctx, counts: readonly number[]): Plan {
  const selections = ctx.options.pages_per_file ?? [];
  if (selections.length > ctx.inputs.length) {
    throw new QuireError('invalid_options', 'pages_per_file has more entries than there are files', {
      errors: [{ pointer: '/options/pages_per_file', detail: `at most ${ctx.inputs.length} entries` }],
    });
  }
  const pages = counts.map((count, i) => resolvePageList(selections[i], count));
  let offset = 0;
  const files = pages.map((list, i) => {
    const pageMap = new Map<number, number>();
    list.forEach((page, k) => {
      if (!pageMap.has(page)) pageMap.set(page, offset + k);
    });
    const file = {
      title: fileStem(ctx.inputs[i]!.name),
      outlines: [],
      pageMap,
      firstIndex: offset,
      pageNumbers: new Map(),
    };
    offset += list.length;
    return file;
  });
  return { pages, files };
}

export type Mode = NonNullable<Static<typeof options>['bookmarks']>;
