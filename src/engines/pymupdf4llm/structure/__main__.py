# Structure driver for the pymupdf4llm engine, run inside the document sandbox: converts the PDF named
# in the job (JSON on stdin) to Markdown or to JSON blocks, page by page, writing as it goes so a long
# document is never held whole. Prints `page n/N` on stderr after each page (the adapter's progress)
# and a one-line JSON summary of counts on stdout; never any text of the document.
import json
import re
import sys

import pymupdf
import pymupdf4llm

# pymupdf4llm's layout mode runs an ONNX model over each page; its rule-based mode (pymupdf_rag)
# scored better on the ground truth (docs/benchmarks.md) and loads no model.
pymupdf4llm.use_layout(False)
from pymupdf4llm.helpers.pymupdf_rag import IdentifyHeaders, to_markdown  # noqa: E402

from blocks import page_blocks  # noqa: E402
from running import margins, running_lines  # noqa: E402

EXIT_UNREADABLE = 3
BOLD_HEADING = re.compile(r"^(#{1,6} )\*\*(.+?)\*\*[ \t]*$", re.M)
IMAGES = "images"


def convert_page(doc, number, job, headers, repeated):
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
        show_progress=False,
    )[0]
    # Image references point into the exchange folder; the archive holds them beside the document.
    text = chunk["text"].replace(f"{job['out_dir']}/{IMAGES}/", "")
    # A heading is a heading by its marks; the bold pymupdf4llm adds from the font says nothing more.
    text = BOLD_HEADING.sub(r"\1\2", text)
    return chunk, text


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
    repeated = running_lines(doc, pages) if job["drop_running"] else set()
    # Heading levels come from font sizes over all selected pages, read once (a counter, not the text).
    headers = IdentifyHeaders(doc, pages=pages)
    counts = {"pages": len(pages), "headings": 0, "tables": 0, "images": 0, "blocks": 0}
    json_out = job["format"] == "json"
    with open(job["output"], "w", encoding="utf-8") as out:
        out.write('{"blocks":[' if json_out else "")
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
        out.write(f'],"pages":{len(pages)}}}\n' if json_out else "")
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
