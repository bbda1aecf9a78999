# The visual difference of one pair of pages: both rendered in RGB at the job's dpi (annotations
# left out), a pixel changed where a colour channel differs by more than the noise threshold (grey
# levels miss a change of hue: blue and red squares can be the same grey); the
# score is the share of changed pixels, and changed pixels within GAP_PT of each other form one
# region (scipy.ndimage's connected components over the dilated mask), reported as the bounding box
# of its changed pixels.
import numpy as np
import pymupdf
from scipy import ndimage

GAP_PT = 4
# A region of fewer changed pixels than this is anti-aliasing noise, not a change.
MIN_PIXELS = 3
MAX_REGIONS = 100
# Pixels of one render at most: A4 at 300 dpi is 8.7 million and peaks near 400 MiB in this process
# (two RGB canvases, their difference, the mask, its dilation and labels); a larger page is rendered
# at the resolution that fits, so a poster at 300 dpi stays under the engine memory cap.
MAX_PIXELS = 16_000_000


def _rgb(page, zoom):
    pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csRGB, alpha=False,
                          annots=False)
    return np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, 3)


def _difference(a, b):
    """The largest channel difference per pixel, both pages on one canvas (white beyond a smaller one)."""
    h, w = max(a.shape[0], b.shape[0]), max(a.shape[1], b.shape[1])
    canvases = []
    for rgb in (a, b):
        canvas = np.full((h, w, 3), 255, dtype=np.int16)
        canvas[: rgb.shape[0], : rgb.shape[1]] = rgb
        canvases.append(canvas)
    return np.abs(canvases[0] - canvases[1]).max(axis=2)


def _regions(mask, zoom, page):
    gap = max(1, round(GAP_PT * zoom))
    labels, _ = ndimage.label(ndimage.binary_dilation(mask, iterations=gap))
    found = []
    for k, box in enumerate(ndimage.find_objects(labels), start=1):
        if box is None:
            continue
        own = mask[box] & (labels[box] == k)
        pixels = int(own.sum())
        if pixels < MIN_PIXELS:
            continue
        rows, cols = np.nonzero(own.any(axis=1))[0], np.nonzero(own.any(axis=0))[0]
        y0, x0 = box[0].start + rows[0], box[1].start + cols[0]
        y1, x1 = box[0].start + rows[-1] + 1, box[1].start + cols[-1] + 1
        # Pixels are in the page as shown (rotated); derotated, the rect is in the page's own space.
        rect = pymupdf.Rect(x0 / zoom, y0 / zoom, x1 / zoom, y1 / zoom) * page.derotation_matrix
        found.append((pixels, rect))
    found.sort(key=lambda r: -r[0])
    return found


def visual_difference(old_page, new_page, dpi, threshold):
    """(score 0-1, [(changed pixels, MuPDF rect on the new page)], whether regions were left out)."""
    area = max(old_page.rect.width * old_page.rect.height, new_page.rect.width * new_page.rect.height, 1)
    zoom = min(dpi / 72, (MAX_PIXELS / area) ** 0.5)
    mask = _difference(_rgb(old_page, zoom), _rgb(new_page, zoom)) > threshold * 255
    changed = int(mask.sum())
    if not changed:
        return 0.0, [], False
    regions = _regions(mask, zoom, new_page)
    score = sum(p for p, _ in regions) / mask.size
    return score, regions[:MAX_REGIONS], len(regions) > MAX_REGIONS
