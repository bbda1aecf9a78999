# The detect-pii run of the driver: personal data (pii.py) on every page with its rectangles, in
# PDF points from the bottom left of the unrotated page (the way redact's `areas` are given), written
# with the full values to the result file only; stdout gets counts, never a value. Strings outside
# the page text (metadata, annotations, fields, bookmarks…) are searched too and counted by place.
import json
import sys

import pymupdf

from document_walk import DocumentWalk
from page_text import page_chars, pieces
from pii import KINDS, Detector, mask
from terms import Terms

EXIT_UNREADABLE = 3


def pdf_rect(page, rect):
    r = rect * ~page.transformation_matrix
    r.normalize()
    return [round(v, 2) for v in (r.x0, r.y0, r.x1, r.y1)]


def page_matches(page, detector):
    text, boxes = page_chars(page)
    found = []
    for f in detector.found(text):
        entry = {"kind": f.kind, "page": page.number + 1,
                 "rects": [pdf_rect(page, r) for r in pieces(boxes, f.start(), f.end())],
                 "value": f.value, "masked": mask(f.kind, f.value)}
        if f.scheme:
            entry["scheme"] = f.scheme
        found.append(entry)
    return found, not text.strip()


def detect(job):
    detector = Detector(job["kinds"], job.get("region"))
    try:
        doc = pymupdf.open(job["input"])
    except Exception:
        sys.exit(EXIT_UNREADABLE)
    matches, textless = [], []
    only = set(job.get("pages") or range(1, len(doc) + 1))
    for page in doc:
        if page.number + 1 not in only:
            continue
        found, empty = page_matches(page, detector)
        matches += found
        if empty:
            textless.append(page.number + 1)
    # A second run over the pages OCR recognised (job["pages"]) leaves the rest of the file alone.
    terms = Terms([], [], False, job["kinds"], job.get("region"))
    elsewhere = {} if job.get("pages") else DocumentWalk(doc, terms, clean=False).run()
    counts = {kind: sum(1 for m in matches if m["kind"] == kind) for kind in KINDS if kind in job["kinds"]}
    with open(job["output"], "w", encoding="utf-8") as out:
        json.dump({"pages": len(doc), "counts": counts, "matches": matches, "elsewhere": elsewhere}, out,
                  ensure_ascii=False, indent=1)
    json.dump({"pages": len(doc), "counts": counts, "textless_pages": textless, "elsewhere": elsewhere},
              sys.stdout)
