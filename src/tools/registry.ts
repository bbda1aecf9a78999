// The list of tools this server offers; the catalogue, validation and OpenAPI are derived from it.
import { compressTool } from './compress.js';
import { infoTool } from './info.js';
import { mergeTool } from './merge.js';
import { protectTool } from './protect.js';
import { rotateTool } from './rotate.js';
import { splitTool } from './split.js';
import type { AnyToolDefinition } from './types.js';
import { unlockTool } from './unlock.js';

export const tools: readonly AnyToolDefinition[] = [
  mergeTool,
  splitTool,
  rotateTool,
  compressTool,
  protectTool,
  unlockTool,
  infoTool,
];

const byName = new Map(tools.map((tool) => [tool.name, tool]));

export function findTool(name: string): AnyToolDefinition | undefined {
  return byName.get(name);
}
