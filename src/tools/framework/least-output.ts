// What a chain of steps makes at the least, known from the options alone: checked against the plan
// when the job is created (docs/api.md §5), so a chain whose steps only multiply (pages ×50, split,
// pages ×50…) is refused before it is queued instead of stopped after it ran for a while.
import { QuireError } from '../../errors/quire-error.js';
import type { PublishedTool } from './types.js';

/** The least one step makes from one input: `files` outputs of at least `pages` pages each. */
export interface LeastOutput {
  files: number;
  pages: number;
}

export interface ChainLimits {
  maxPages: number;
  maxFanOut: number;
}

/**
 * Walks the chain from one input of one page (the least any PDF has). A tool without its own
 * `leastOutput` makes one file keeping the pages when it writes a PDF, one page otherwise, and when
 * it packs parts, possibly none (extract-images on a PDF without images), which ends the walk.
 */
export function checkLeastOutput(
  steps: readonly { tool: PublishedTool; options: Record<string, unknown> }[],
  limits: ChainLimits,
): void {
  let files = 1;
  let pages = 1;
  let fannedOut = 0;
  for (const [index, { tool, options }] of steps.entries()) {
    const least = tool.leastOutput?.(options, pages) ?? defaultLeast(tool, pages);
    if (least.files === 0) return;
    files *= least.files;
    pages = least.pages;
    if (tool.output.parts && steps.length > index + 1) fannedOut += files;
    if (fannedOut > limits.maxFanOut) {
      throw new QuireError(
        'job_limit_exceeded',
        `Step ${index + 1} (${tool.name}) fans the job out into at least ${fannedOut} files; the plan's limit (fan_out) is ${limits.maxFanOut}.`,
        { extras: { limit: 'fan_out', quota: limits.maxFanOut } },
      );
    }
    if (files * pages > limits.maxPages) {
      throw new QuireError(
        'limit_pages_exceeded',
        `Step ${index + 1} (${tool.name}) makes at least ${files * pages} pages across the job; the limit is ${limits.maxPages}.`,
        { extras: { pages: files * pages, limit_pages: limits.maxPages } },
      );
    }
  }
}

function defaultLeast(tool: PublishedTool, pages: number): LeastOutput {
  if (tool.output.parts) return { files: 0, pages: 0 };
  return { files: 1, pages: tool.output.contentType === 'application/pdf' ? pages : 1 };
}
