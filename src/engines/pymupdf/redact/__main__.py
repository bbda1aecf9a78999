# Redaction driver of the pymupdf engine, run inside the document sandbox: reads the job (areas,
# literal texts, regular expressions, kinds of personal data to detect) as JSON on stdin, never on
# argv (`"action": "detect"` runs detect-pii instead, detect.py); removes what they cover from
# the pages (annotations and form fields first, then text and pixels) and from every other place a
# text can live (document_walk.py); writes the result and prints a report of counts on stdout. It
# never prints matched text: it may be what is being hidden.
import json
import sys

import pymupdf

from annotations import clean_annotations, clean_widgets
from detect import detect
from document_walk import DocumentWalk
from layers import Layers
from page_text import count_matches, page_chars, redact_text
from pdf_objects import indirect_annotations
from terms import Terms

# Exit codes the TypeScript adapter maps (src/engines/pymupdf/pymupdf.ts); 5 is in terms.py.
EXIT_UNREADABLE = 3
EXIT_TOO_MANY = 4
EXIT_LEFT_OVER = 6

# The places of the `removed` facts (docs/tools.md, "What redact removes"); what the walk finds
# anywhere else is counted as `other`.
PLACES = [
    "page_text", "outside_box", "marked_content", "annotations", "form_fields", "fields_deleted",
    "document_info", "document_xmp", "page_xmp", "other_xmp", "outlines", "actions", "javascript",
    "embedded_files", "page_labels", "named_destinations", "structure", "other",
]
METADATA = ("document_info", "document_xmp", "page_xmp", "other_xmp", "outlines")


def add(counts, more):
    for place, n in more.items():
        counts[place] = counts.get(place, 0) + n


def page_areas(page, job):
    to_pdf = page.transformation_matrix
    return [pymupdf.Rect(a["rect"]) * to_pdf for a in job["areas"] if a["page"] == page.number + 1]


def clean_page_objects(doc, page, job, terms, removed):
    """Step one on a page: its form fields and annotations (their text is not the page's)."""
    areas = page_areas(page, job)
    images = sum(
        1 for info in page.get_image_info() if any(pymupdf.Rect(info["bbox"]).intersects(a) for a in areas)
    )
    fields = clean_widgets(doc, page, terms, areas, removed)
    annotations = clean_annotations(doc, page, terms, areas)
    add(removed, {"annotations": annotations, "fields_deleted": fields})
    return {"page": page.number + 1, "areas": len(areas), "images": images, "annotations": annotations,
            "fields": fields}


def clean_page_text(page, job, terms, report, removed):
    """Step two: the page's own text and pixels."""
    visible, outside, rasterised = redact_text(page, terms, page_areas(page, job), job["fill"])
    add(removed, {"page_text": visible, "outside_box": outside})
    return {**report, "text_matches": visible, "outside_box": outside, "rasterized": rasterised}


def more_page_text(page, job, terms, report, removed):
    """The page text again, with every layer off: what only then shows (areas are done)."""
    if not terms:
        return report
    visible, outside, rasterised = redact_text(page, terms, [], job["fill"])
    add(removed, {"page_text": visible, "outside_box": outside})
    return {**report, "text_matches": report["text_matches"] + visible,
            "outside_box": report["outside_box"] + outside, "rasterized": report["rasterized"] or rasterised}


def detected_kinds(doc, terms):
    """How many of each kind of personal data `detect` finds in the page text (counts, no values)."""
    counts = {kind: 0 for kind in terms.detector.kinds}
    for page in doc:
        for found in terms.detector.found(page_chars(page)[0]):
            counts[found.kind] += 1
    return counts


def main():
    job = json.load(sys.stdin)
    if job.get("action") == "detect":
        detect(job)
        return
    terms = Terms(job["texts"], job["patterns"], job.get("ignore_case"), job.get("detect", []),
                  job.get("region"))
    try:
        doc = pymupdf.open(job["input"])
    except Exception:
        sys.exit(EXIT_UNREADABLE)
    layers = Layers(doc)
    if layers:
        doc = layers.switched(doc, on=True)
    detected = detected_kinds(doc, terms) if terms.detector else {}
    total = sum(count_matches(page, terms) for page in doc)
    if total > job["max_matches"]:
        sys.stderr.write(json.dumps({"matches": total}) + "\n")
        sys.exit(EXIT_TOO_MANY)
    removed = {}
    indirect_annotations(doc)
    reports = [clean_page_objects(doc, page, job, terms, removed) for page in doc]
    if terms:
        # The strings and streams before the page text: a marked-content /ActualText holding a
        # match would otherwise be read as page text that has no place on the page to redact.
        add(removed, DocumentWalk(doc, terms).run(everything=False))
    pages = [clean_page_text(page, job, terms, reports[page.number], removed) for page in doc]
    if layers:
        doc = layers.switched(doc, on=False)
        pages = [more_page_text(page, job, terms, pages[page.number], removed) for page in doc]
        doc = layers.restored(doc)
    if terms:
        # Written once and read back with unused objects dropped (deleted annotations, replaced
        # content streams), so that everything the walk then finds is in the result.
        doc = pymupdf.open("pdf", doc.tobytes(garbage=4))
        add(removed, DocumentWalk(doc, terms).run())
        left = DocumentWalk(doc, terms, clean=False).run()
        if left:
            sys.stderr.write(json.dumps({"left": sorted(left)}) + "\n")
            sys.exit(EXIT_LEFT_OVER)
    # garbage=4 drops the old content streams and images outright instead of leaving them unreferenced.
    doc.save(job["output"], garbage=4, deflate=True, clean=True)
    counts = {place: 0 for place in PLACES}
    for place, n in removed.items():
        key = place if place in counts else "other"
        counts[key] += n
    changed = [p for p in pages if p["text_matches"] or p["outside_box"] or p["areas"] or p["annotations"]
               or p["fields"]]
    report = {"pages": changed, "removed": counts, "metadata_entries": sum(counts[k] for k in METADATA),
              "detected": detected}
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    main()
