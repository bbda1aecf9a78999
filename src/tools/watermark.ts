// watermark: lays a text or an image stamp over (or under) selected pages. The stamp is a small PDF
// built with pdf-lib; qpdf's --overlay/--underlay applies it, so the input stays out of JS memory.

import { type Static, Type } from '@sinclair/typebox';
import type { PDFImage } from 'pdf-lib';
import sharp from 'sharp';
import { QuireError } from '../errors/quire-error.js';
import { onlyPdf } from './framework/inputs.js';
import { outputName } from './framework/output-name.js';
import { PageSelectionSchema, resolvePageSet } from './framework/page-selection.js';
import { StringEnum } from './framework/schema.js';
import { defineTool, type ToolContext, type ToolInput } from './framework/types.js';
import {
  applyStamp,
  drawCenteredText,
  drawSearchableText,
  isStampEncodable,
  parseHexColor,
  rotatedExtent,
  type StampPage,
  sizeKey,
  stampTargets,
  type TextStyle,
  withRotation,
  writeStamp,
} from './shared/stamp.js';

const POSITIONS = [
  'center',
  'top-left',
  'top-center',
  'top-right',
  'middle-left',
  'middle-right',
  'bottom-left',
  'bottom-center',
  'bottom-right',
  'tile',
] as const;

const options = Type.Object(
  {
    text: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        pattern: '^[^\\u0000-\\u001f\\u007f]+$',
        description:
          'The watermark text (one line; Latin-1 characters, Helvetica). Give either `text` or an image as the second file, not both.',
        examples: ['CONFIDENTIAL'],
      }),
    ),
    font_size: Type.Optional(
      Type.Number({
        minimum: 4,
        maximum: 500,
        default: 48,
        description: 'Text size in points.',
        examples: [48],
      }),
    ),
    color: Type.Optional(
      Type.String({
        pattern: '^#[0-9A-Fa-f]{6}$',
        default: '#888888',
        description: 'Text colour as #RRGGBB.',
        examples: ['#FF0000'],
      }),
    ),
    opacity: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        default: 0.3,
        description: '0 = invisible, 1 = opaque.',
        examples: [0.3],
      }),
    ),
    rotation: Type.Optional(
      Type.Number({
        minimum: -360,
        maximum: 360,
        default: 45,
        description: 'Degrees counter-clockwise, as seen on the page.',
        examples: [45],
      }),
    ),
    position: Type.Optional(
      StringEnum(POSITIONS, {
        default: 'center',
        description:
          'Where the stamp sits on each page, 10 mm from the edges; `tile` repeats it over the page.',
      }),
    ),
    layer: Type.Optional(
      StringEnum(['over', 'under'], {
        default: 'over',
        description:
          '`over` draws on top of the page; `under` draws beneath its content (hidden by opaque pages such as scans).',
      }),
    ),
    pages: Type.Optional(PageSelectionSchema('Pages to watermark; empty or omitted = all pages.')),
  },
  {
    additionalProperties: false,
    examples: [
      { text: 'CONFIDENTIAL' },
      { text: 'DRAFT', position: 'tile', opacity: 0.15, rotation: 30, pages: '1-3' },
    ],
  },
);

type Options = Static<typeof options>;

/** 10 mm, the distance from the page edges for the edge and corner positions. */
const EDGE_MARGIN_PT = (10 / 25.4) * 72;
/** An image stamp spans at most this share of the page (per side); a tile, half of it. */
const IMAGE_SHARE = 0.5;
/** Bounds the content of a tiled page (a tiny font on a poster would otherwise mean 100k copies). */
const MAX_TILES = 400;
/** Watermark images are reduced to this many pixels on the long side: plenty at stamp size. */
const IMAGE_MAX_SIDE_PX = 2000;
const IMAGE_MAX_INPUT_PIXELS = 100_000_000;

/** Centres of the stamp on a page: one for a fixed position, a staggered grid for `tile`. */
function anchors(position: Options['position'], page: StampPage, extent: { width: number; height: number }) {
  const { width: W, height: H } = page;
  if (position === 'tile') {
    const gap = Math.max(extent.width, extent.height) * 0.25;
    let stepX = extent.width + gap;
    let stepY = extent.height + gap;
    const grow = Math.sqrt(Math.max(1, ((W / stepX + 1) * (H / stepY + 1)) / MAX_TILES));
    stepX *= grow;
    stepY *= grow;
    const points: [number, number][] = [];
    for (let row = 0, y = stepY / 2; y - extent.height / 2 < H; row++, y += stepY) {
      for (let x = row % 2 === 0 ? stepX / 2 : 0; x - extent.width / 2 < W; x += stepX) points.push([x, y]);
    }
    return points;
  }
  const [v, h] = position === 'center' ? ['middle', 'center'] : (position ?? 'center').split('-');
  const x =
    h === 'left'
      ? EDGE_MARGIN_PT + extent.width / 2
      : h === 'right'
        ? W - EDGE_MARGIN_PT - extent.width / 2
        : W / 2;
  const y =
    v === 'top'
      ? H - EDGE_MARGIN_PT - extent.height / 2
      : v === 'bottom'
        ? EDGE_MARGIN_PT + extent.height / 2
        : H / 2;
  return [[x, y] as [number, number]];
}

function drawTextStamp(stamp: StampPage, opts: Options): void {
  const text = opts.text!;
  const font = stamp.font;
  const style: TextStyle = {
    font,
    size: opts.font_size ?? 48,
    color: parseHexColor(opts.color ?? '#888888'),
    opacity: opts.opacity ?? 0.3,
    rotation: opts.rotation ?? 45,
  };
  const w = font.widthOfTextAtSize(text, style.size);
  const h = font.heightAtSize(style.size, { descender: false });
  const points = anchors(opts.position, stamp, rotatedExtent(w, h, style.rotation));
  for (const [x, y] of points) drawCenteredText(stamp.page, text, x, y, style);
  if (style.rotation % 90 !== 0) {
    const [x, y] = opts.position === 'tile' ? [stamp.width / 2, stamp.height / 2] : points[0]!;
    drawSearchableText(stamp.page, font, text, x, y);
  }
}

function drawImageStamp(stamp: StampPage, image: PDFImage, opts: Options): void {
  const share = opts.position === 'tile' ? IMAGE_SHARE / 2 : IMAGE_SHARE;
  const scale = Math.min((share * stamp.width) / image.width, (share * stamp.height) / image.height);
  const [w, h] = [image.width * scale, image.height * scale];
  const rotation = opts.rotation ?? 45;
  for (const [x, y] of anchors(opts.position, stamp, rotatedExtent(w, h, rotation))) {
    withRotation(stamp.page, x, y, rotation, () => {
      stamp.page.drawImage(image, {
        x: -w / 2,
        y: -h / 2,
        width: w,
        height: h,
        opacity: opts.opacity ?? 0.3,
      });
    });
  }
}

/** Any accepted image, upright (EXIF) and reduced, as PNG: pdf-lib embeds PNG with its alpha. */
async function stampImagePng(input: ToolInput): Promise<Buffer> {
  return sharp(input.path, { limitInputPixels: IMAGE_MAX_INPUT_PIXELS })
    .rotate()
    .resize({ width: IMAGE_MAX_SIDE_PX, height: IMAGE_MAX_SIDE_PX, fit: 'inside', withoutEnlargement: true })
    .png()
    .toBuffer()
    .catch(() => {
      throw new QuireError('unsupported_file', 'The watermark image could not be read');
    });
}

async function writeWatermarkStamp(
  ctx: ToolContext<Options>,
  input: ToolInput,
  pages: number[],
  count: number,
) {
  const targets = await stampTargets(ctx, input, pages, count);
  const imageInput = ctx.inputs[1];
  const png = imageInput ? await stampImagePng(imageInput) : undefined;
  let image: PDFImage | undefined;
  return writeStamp(ctx.workDir, targets, sizeKey, async (stamp) => {
    if (!png) return drawTextStamp(stamp, ctx.options);
    image ??= await stamp.doc.embedPng(png);
    drawImageStamp(stamp, image, ctx.options);
  });
}

export const watermarkTool = defineTool({
  name: 'watermark',
  title: 'Watermark a PDF',
  group: 'Content and images',
  keywords: ['stamp', 'overlay', 'confidential', 'draft'],
  description:
    'Stamps a text, or an image given as the second file, over or under the selected pages: position or tiled, rotated, translucent.',
  inputs: {
    minFiles: 1,
    maxFiles: 2,
    accepts: ['application/pdf', 'image/jpeg', 'image/png', 'image/tiff', 'image/webp', 'image/gif'],
    opens: 'pdf',
  },
  options,
  output: { contentType: 'application/pdf' },
  engines: ['qpdf', 'poppler'],
  steps: { inspect: 10, stamp: 10, apply: 80 },
  checkRequest(opts, fileCount) {
    if (opts.text !== undefined && fileCount > 1) {
      return [{ pointer: '/options/text', detail: 'give either text or an image file, not both' }];
    }
    if (opts.text === undefined && fileCount < 2) {
      return [{ pointer: '/options/text', detail: 'is required unless an image is sent as the second file' }];
    }
    if (opts.text !== undefined && !isStampEncodable(opts.text)) {
      return [
        {
          pointer: '/options/text',
          detail: 'has characters outside Latin-1 (WinAnsi), which the stamp font cannot write',
        },
      ];
    }
    return [];
  },
  checkJob(_options, [input, image]) {
    if (input?.contentType !== 'application/pdf') {
      throw new QuireError('unsupported_file', 'The first file must be the PDF to watermark');
    }
    if (image && image.contentType === 'application/pdf') {
      throw new QuireError(
        'unsupported_file',
        'The second file must be an image (JPEG, PNG, TIFF, WebP or GIF)',
      );
    }
  },
  async run(ctx) {
    const { input, pageCount: count } = await onlyPdf(ctx);
    const pages = resolvePageSet(ctx.options.pages, count);

    ctx.progress.step('stamp');
    const plan = await writeWatermarkStamp(ctx, input, pages, count);

    ctx.progress.step('apply');
    const output = await applyStamp(ctx, input, plan, ctx.options.layer ?? 'over', 'watermarked');
    return {
      path: output,
      name: outputName(input.name, 'watermarked'),
      contentType: 'application/pdf',
      facts: { pages: count, watermarked_pages: pages.length },
    };
  },
});
