# Structure driver for the pymupdf4llm engine, run inside the document sandbox, on a job given as JSON
# on stdin. `survey`: prints the heading levels by font size and the running lines of the selected
# pages (normalised texts of repeated margin lines: what must be dropped, nothing else). `convert`:
# converts the given pages to Markdown or to JSON blocks, page by page, writing as it goes; prints
# `page n/N` on stderr after each page (the adapter's progress) and a one-line JSON summary of counts
# on stdout. The adapter runs `convert` on runs of pages, so no process lives long or grows.
import json
import re
import sys

import pymupdf
import pymupdf4llm

# pymupdf4llm's layout mode runs an ONNX model over each page; its rule-based mode (pymupdf_rag)
# scored better on the ground truth (docs/benchmarks.md) and loads no model.
pymupdf4llm.use_layout(False)
from blocks import page_blocks  # noqa: E402
from pymupdf4llm.helpers.pymupdf_rag import IdentifyHeaders, to_markdown  # noqa: E402
from running import margins, running_lines  # noqa: E402

EXIT_UNREADABLE = 3
BOLD_HEADING = re.compile(r"^(#{1,6} )\*\*(.+?)\*\*[ \t]*$", re.M)
INLINE_CODE = re.compile(r"`([^`\n]*)`")
IMAGES = "images"
# The font of the invisible text layer OCR (ocrmypdf, Tesseract) puts on a scanned page.
OCR_FONT = "GlyphLessFont"


def ocr_layer(page):
    """Whether the page's text is an OCR layer: its glyph-less font says it is monospaced, and
    pymupdf4llm would otherwise set every line of the scan as code."""
    return any(font[3].endswith(OCR_FONT) for font in page.get_fonts())


def convert_page(doc, number, job, headers, repeated):
    ocr = ocr_layer(doc[number])
    chunk = to_markdown(
        doc,
        pages=[number],
        hdr_info=headers,
        margins=margins(doc[number], repeated),
        page_chunks=True,
        write_images=job["images"],
        ignore_images=not job["images"],
        image_path=f"{job['out_dir']}/{IMAGES}",
        filename="image",
        extract_words=job["format"] == "json",
        ignore_code=ocr,
        show_progress=False,
    )[0]
    # Image references point into the exchange folder; the archive holds them beside the document.
    text = chunk["text"].replace(f"{job['out_dir']}/{IMAGES}/", "")
    # A heading is a heading by its marks; the bold pymupdf4llm adds from the font says nothing more.
    text = BOLD_HEADING.sub(r"\1\2", text)
    if ocr:
        # Nor is a heading of a scan code: its marks come from the OCR font as well.
        text = INLINE_CODE.sub(r"\1", text)
    return chunk, text


class Headers:
    """pymupdf4llm's header levels (IdentifyHeaders) rebuilt from the survey: font size to level."""

    def __init__(self, survey):
        self.body_limit = survey["body_limit"]
        self.header_id = {int(size): "#" * level + " " for size, level in survey["levels"].items()}

    def get_header_id(self, span, page=None):
        size = round(span["size"])
        return "" if size <= self.body_limit else self.header_id.get(size, "")


def survey(doc, pages, job):
    """What every run of the conversion must share: heading levels by font size over all selected
    pages, and the running lines. Counts of sizes and of a few texts only, page by page."""
    headers = IdentifyHeaders(doc, pages=pages)
    # Running lines are the document's, whichever pages were asked for: one page alone repeats nothing.
    every = range(doc.page_count)
    running = running_lines(doc, every) if job["drop_running"] else set()
    print(json.dumps({
        "body_limit": headers.body_limit,
        "levels": {str(size): len(tag.strip()) for size, tag in headers.header_id.items()},
        "running": sorted([text, bucket] for text, bucket in running),
    }))


def convert(doc, pages, job):
    headers = Headers(job["survey"])
    repeated = {(text, bucket) for text, bucket in job["survey"]["running"]}
    counts = {"pages": len(pages), "headings": 0, "tables": 0, "images": 0, "blocks": 0}
    json_out = job["format"] == "json"
    with open(job["output"], "w", encoding="utf-8") as out:
        first = True
        for done, number in enumerate(pages, start=1):
            chunk, text = convert_page(doc, number, job, headers, repeated)
            blocks = page_blocks(text, number + 1, chunk)
            counts["blocks"] += len(blocks)
            for b in blocks:
                counts["headings"] += b["type"] == "heading"
                counts["tables"] += b["type"] == "table"
                counts["images"] += b["type"] == "image"
            if json_out:
                # Blocks only, comma-separated: the adapter joins the runs into one document.
                for b in blocks:
                    out.write(("" if first else ",") + json.dumps(b, ensure_ascii=False))
                    first = False
            else:
                if job["page_markers"]:
                    out.write(f"<!-- page {number + 1} -->\n\n")
                out.write(text.strip() + "\n\n")
            # MuPDF's object store would otherwise grow with every page read.
            pymupdf.TOOLS.store_shrink(100)
            sys.stderr.write(f"page {done}/{len(pages)}\n")
            sys.stderr.flush()
    print(json.dumps(counts))


def main():
    job = json.load(sys.stdin)
    try:
        doc = pymupdf.open(job["input"])
        if not doc.is_pdf or doc.page_count == 0:
            raise ValueError
    except Exception:
        sys.stderr.write("cannot open the PDF\n")
        sys.exit(EXIT_UNREADABLE)
    pages = [p - 1 for p in job["pages"]] if job.get("pages") else list(range(doc.page_count))
    if job["mode"] == "survey":
        survey(doc, pages, job)
    else:
        convert(doc, pages, job)


if __name__ == "__main__":
    main()
