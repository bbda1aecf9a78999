# The text and pixels of a page: MuPDF's redaction under the areas and over every match, wherever
# the text is drawn: inside the visible box, outside the CropBox or the MediaBox (a reader never
# shows it, text extraction finds it), in form XObjects, in render mode 3 (invisible, as OCR layers).
import pymupdf

RASTER_DPI = 150
# Without TEXT_PRESERVE_LIGATURES a ligature is split into its letters, so "fi" in "find" matches the
# way a reader sees it; TEXT_DEHYPHENATE joins "Trace-" + "Monkey" at a line end, as pdftotext does.
# TEXT_IGNORE_ACTUALTEXT: the glyphs drawn are matched, not a marked-content /ActualText standing in
# for them (that string is cleaned in the content stream itself, content_strings.py).
TEXT_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_DEHYPHENATE | pymupdf.TEXT_IGNORE_ACTUALTEXT
# The text of the whole drawing plane, not only the part inside the page's box.
EVERYWHERE = pymupdf.Rect(-1e6, -1e6, 1e6, 1e6)


def page_chars(page):
    """The page's text with one box per character, as a tuple (a Rect is made only for the
    characters of a match: making one per character costs more than the extraction); None marks
    a line end (no box)."""
    text, boxes = [], []
    for block in page.get_text("rawdict", flags=TEXT_FLAGS, clip=EVERYWHERE)["blocks"]:
        for line in block.get("lines", []):
            for span in line["spans"]:
                for ch in span["chars"]:
                    text.append(ch["c"])
                    boxes.append(ch["bbox"])
            text.append("\n")
            boxes.append(None)
    return "".join(text), boxes


def pieces(boxes, start, end):
    """The rectangles of the characters start..end, one per line piece: a new piece at a line end,
    and where a dehyphenated word goes on on the next line."""
    found, line, previous = [], pymupdf.Rect(), None
    for box in (None if b is None else pymupdf.Rect(b) for b in boxes[start:end]):
        if box is None or (previous is not None and abs(box.y0 - previous.y0) > previous.height / 2):
            if not line.is_empty:
                found.append(line)
            line = pymupdf.Rect()
        if box is not None:
            line |= box
        previous = box
    if not line.is_empty:
        found.append(line)
    return found


def match_rects(page, terms):
    """Each match on `page` as the rectangles of its line pieces (a list per match)."""
    text, boxes = page_chars(page)
    return [
        pieces(boxes, m.start(), m.end())
        for pattern in terms.patterns
        for m in pattern.finditer(text)
        if m.end() > m.start()
    ]


def count_matches(page, terms):
    if not terms:
        return 0
    text = page_chars(page)[0]
    return sum(1 for p in terms.patterns for m in p.finditer(text) if m.end() > m.start())


def inset(rect):
    """The match box shrunk a little, so glyphs that only touch it (neighbours) stay."""
    dx, dy = min(0.5, rect.width / 10), rect.height / 5
    return pymupdf.Rect(rect.x0 + dx, rect.y0 + dy, rect.x1 - dx, rect.y1 - dy)


def rasterise(page, rects, fill):
    """Last resort for a page whose text the redaction could not remove: an image of the page with
    the matches painted over replaces its whole content (also what lay outside its box)."""
    pix = page.get_pixmap(dpi=RASTER_DPI, annots=False)
    scale = RASTER_DPI / 72
    for r in rects:
        box = pymupdf.IRect(r.x0 * scale, r.y0 * scale, r.x1 * scale, r.y1 * scale)
        pix.set_rect(box, (0, 0, 0) if fill == "black" else (255, 255, 255))
    page.add_redact_annot(EVERYWHERE)
    page.apply_redactions(images=pymupdf.PDF_REDACT_IMAGE_REMOVE)
    page.insert_image(page.rect, pixmap=pix)


def redact_text(page, terms, areas, fill):
    """Redacts the areas and matches; returns (matches inside the box, outside it, rasterised)."""
    color = (0, 0, 0) if fill == "black" else None
    matches = match_rects(page, terms) if terms else []
    visible = sum(1 for pieces in matches if any(r.intersects(page.rect) for r in pieces))
    rects = [r for pieces in matches for r in pieces]
    for rect in areas:
        page.add_redact_annot(rect, fill=color)
    for rect in rects:
        page.add_redact_annot(inset(rect), fill=color)
    if areas or rects:
        # Vector art is removed only under areas; a text match must not take table rules with it.
        art = pymupdf.PDF_REDACT_LINE_ART_REMOVE_IF_COVERED if areas else pymupdf.PDF_REDACT_LINE_ART_NONE
        page.apply_redactions(images=pymupdf.PDF_REDACT_IMAGE_PIXELS, graphics=art)
    rasterised = count_matches(page, terms) > 0
    if rasterised:
        rasterise(page, rects, fill)
    return visible, len(matches) - visible, rasterised
