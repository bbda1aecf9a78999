# Redaction driver for the pymupdf engine: reads a 0600 JSON job file (areas, literal texts, regular
# expressions: never on argv), removes what they cover with MuPDF's redaction, and prints a JSON
# report of counts per page on stdout. It never prints matched text: it may be what is being hidden.
import json
import re
import sys

import pymupdf

# Exit codes the TypeScript adapter maps (src/engines/pymupdf/pymupdf.ts).
EXIT_UNREADABLE = 3
EXIT_TOO_MANY = 4
EXIT_BAD_PATTERN = 5

RASTER_DPI = 150
# Without TEXT_PRESERVE_LIGATURES a ligature is split into its letters, so "fi" in "find" matches the
# way a reader sees it; TEXT_DEHYPHENATE joins "Trace-" + "Monkey" at a line end, as pdftotext does.
TEXT_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP | pymupdf.TEXT_DEHYPHENATE


def fail(code, message):
    sys.stderr.write(message + "\n")
    sys.exit(code)


def page_chars(page):
    """The page's text with one box per character; None marks a line end (no box)."""
    text, boxes = [], []
    for block in page.get_text("rawdict", flags=TEXT_FLAGS)["blocks"]:
        for line in block.get("lines", []):
            for span in line["spans"]:
                for ch in span["chars"]:
                    text.append(ch["c"])
                    boxes.append(pymupdf.Rect(ch["bbox"]))
            text.append("\n")
            boxes.append(None)
    return "".join(text), boxes


def match_rects(page, patterns):
    """How many matches `patterns` have on `page`, and one rectangle per line piece of each."""
    text, boxes = page_chars(page)
    rects, count = [], 0
    for pattern in patterns:
        for m in pattern.finditer(text):
            if m.end() == m.start():
                continue
            count += 1
            line, previous = pymupdf.Rect(), None
            for box in boxes[m.start():m.end()]:
                # A new piece at a line end, and where a dehyphenated word goes on on the next line.
                if box is None or (previous is not None and abs(box.y0 - previous.y0) > previous.height / 2):
                    if not line.is_empty:
                        rects.append(line)
                    line = pymupdf.Rect()
                if box is not None:
                    line |= box
                previous = box
            if not line.is_empty:
                rects.append(line)
    return count, rects


def inset(rect):
    """The match box shrunk a little, so glyphs that only touch it (neighbours) stay."""
    dx, dy = min(0.5, rect.width / 10), rect.height / 5
    return pymupdf.Rect(rect.x0 + dx, rect.y0 + dy, rect.x1 - dx, rect.y1 - dy)


def scrub(value, patterns):
    for pattern in patterns:
        value = pattern.sub("", value)
    return value


def scrub_document(doc, patterns):
    """Removes matches from /Info, XMP and outline titles; returns how many entries changed."""
    changed = 0
    meta = {k: v for k, v in (doc.metadata or {}).items() if isinstance(v, str)}
    clean = {k: scrub(v, patterns) for k, v in meta.items()}
    if clean != meta:
        changed += sum(1 for k in meta if clean[k] != meta[k])
        doc.set_metadata({k: v for k, v in clean.items() if k != "format" and k != "encryption"})
    xmp = doc.get_xml_metadata()
    if xmp and scrub(xmp, patterns) != xmp:
        doc.set_xml_metadata(scrub(xmp, patterns))
        changed += 1
    toc = doc.get_toc(simple=False)
    for i, item in enumerate(toc):
        title = scrub(item[1], patterns)
        if title != item[1]:
            doc.set_toc_item(i, title=title or "-")
            changed += 1
    return changed


def annotation_hits(page, patterns, areas):
    """Annotations whose text matches, or that lie under an area: removed, not just covered."""
    doomed = []
    for annot in page.annots() or []:
        if annot.type[0] == pymupdf.PDF_ANNOT_REDACT:
            continue
        info = annot.info or {}
        texts = [str(info.get(k, "")) for k in ("content", "title", "subject")]
        if any(p.search(t) for p in patterns for t in texts) or any(annot.rect.intersects(a) for a in areas):
            doomed.append(annot)
    for annot in doomed:
        page.delete_annot(annot)
    return len(doomed)


def rasterise(page, rects, fill):
    """Last resort for a page whose text the redaction could not remove: an image of the page with
    the matches painted over replaces its whole content."""
    pix = page.get_pixmap(dpi=RASTER_DPI)
    scale = RASTER_DPI / 72
    for r in rects:
        box = pymupdf.IRect(r.x0 * scale, r.y0 * scale, r.x1 * scale, r.y1 * scale)
        pix.set_rect(box, (0, 0, 0) if fill == "black" else (255, 255, 255))
    page.add_redact_annot(page.rect)
    page.apply_redactions(images=pymupdf.PDF_REDACT_IMAGE_REMOVE)
    page.insert_image(page.rect, pixmap=pix)


def redact_page(page, job, patterns):
    color = (0, 0, 0) if job["fill"] == "black" else None
    to_pdf = page.transformation_matrix
    areas = [pymupdf.Rect(a["rect"]) * to_pdf for a in job["areas"] if a["page"] == page.number + 1]
    count, rects = match_rects(page, patterns)
    images = sum(1 for info in page.get_image_info() if any(pymupdf.Rect(info["bbox"]).intersects(a) for a in areas))
    annots = annotation_hits(page, patterns, areas)
    for rect in areas:
        page.add_redact_annot(rect, fill=color)
    for rect in rects:
        page.add_redact_annot(inset(rect), fill=color)
    if areas or rects:
        # Vector art is removed only under areas; a text match must not take table rules with it.
        art = pymupdf.PDF_REDACT_LINE_ART_REMOVE_IF_COVERED if areas else pymupdf.PDF_REDACT_LINE_ART_NONE
        page.apply_redactions(images=pymupdf.PDF_REDACT_IMAGE_PIXELS, graphics=art)
    rasterised = bool(patterns) and match_rects(page, patterns)[0] > 0
    if rasterised:
        rasterise(page, rects, job["fill"])
    return {
        "page": page.number + 1,
        "text_matches": count,
        "areas": len(areas),
        "images": images,
        "annotations": annots,
        "rasterized": rasterised,
    }


def compile_patterns(job):
    flags = re.IGNORECASE if job.get("ignore_case") else 0
    try:
        texts = [re.compile(re.escape(t), flags) for t in job["texts"]]
        return texts + [re.compile(p, flags) for p in job["patterns"]]
    except re.error as err:
        fail(EXIT_BAD_PATTERN, f"pattern {err.pattern!r}: {err.msg}")


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        job = json.load(f)
    patterns = compile_patterns(job)
    try:
        doc = pymupdf.open(job["input"])
    except Exception:
        fail(EXIT_UNREADABLE, "cannot open the PDF")
    total = sum(match_rects(page, patterns)[0] for page in doc) if patterns else 0
    if total > job["max_matches"]:
        fail(EXIT_TOO_MANY, json.dumps({"matches": total}))
    pages = [redact_page(page, job, patterns) for page in doc]
    metadata = scrub_document(doc, patterns) if patterns else 0
    # garbage=4 drops the old content streams and images outright instead of leaving them unreferenced.
    doc.save(job["output"], garbage=4, deflate=True, clean=True)
    changed = [p for p in pages if p["text_matches"] or p["areas"] or p["annotations"]]
    json.dump({"pages": changed, "metadata_entries": metadata}, sys.stdout)


if __name__ == "__main__":
    main()
