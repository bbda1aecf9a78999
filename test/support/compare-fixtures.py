# Pairs of PDFs with known edits for the compare tool's tests, made with PyMuPDF (its Story lays
# out HTML: headings, paragraphs, a table, an image). Run with the pdfdiff engine's Python:
#   python compare-fixtures.py OUT_DIR           the pairs (old.pdf and <edit>.pdf, see EDITS), and
#                                                scan-<name>.pdf: old, image and removed as page images
#   python compare-fixtures.py OUT_DIR long N    long-old.pdf and long-new.pdf of N pages
#   python compare-fixtures.py OUT_DIR many N    many-old.pdf and many-new.pdf: one page of 2N words,
#                                                every second one changed (N changes)
# Every page of the base document has text of its own, so each edit is the only difference.
import os
import random
import sys

import pymupdf

PAGE = pymupdf.paper_rect("a4")
BODY = PAGE + (72, 72, -72, -72)
WORDS = ("amber basil cedar delta ember fjord garnet harbor indigo juniper kestrel lagoon meadow "
         "nectar orchid pebble quartz raven saffron tundra umber violet willow xenon yarrow zephyr").split()


def sentence(page, n):
    """A sentence no other paragraph repeats: words picked by page and paragraph."""
    picked = random.Random(page * 100 + n).sample(WORDS, 14)
    return f"Paragraph {n} of page {page} reads: " + " ".join(picked) + "."


def table(cell):
    rows = [("Item", "Count"), ("Bolts", "12"), ("Nuts", cell), ("Washers", "30")]
    cells = "".join(f"<tr><td>{a}</td><td>{b}</td></tr>" for a, b in rows)
    return f'<table border="1" cellpadding="4">{cells}</table>'


def page_html(n, edit):
    if edit == "rewritten" and n == 4:
        return f"<h1>Section {n}</h1><p>{sentence(40, 1)}</p><p>{sentence(40, 2)}</p>"
    parts = [f"<h1>Section {n}</h1>", f"<p>{sentence(n, 1)}</p>"]
    if edit == "paragraph" and n == 1:
        parts.append("<p>An inserted paragraph says something entirely new here.</p>")
    second = sentence(n, 2)
    if edit == "word" and n == 2:
        second = second.replace("reads", "states")
    parts.append(f"<p>{second}</p>")
    if n == 2:
        parts.append(table("47" if edit == "table" else "42"))
    if n == 3:
        parts.append('<p><img src="changed.png" width="120" height="120"/></p>' if edit == "image"
                     else '<p><img src="plain.png" width="120" height="120"/></p>')
    parts.append(f"<p>{sentence(n, 3)}</p>")
    return "".join(parts)


def images(out):
    for name, colour in (("plain.png", (40, 90, 200)), ("changed.png", (200, 60, 40))):
        pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 120, 120), 0)
        pix.set_rect(pix.irect, (250, 250, 250))
        pix.set_rect(pymupdf.IRect(20, 20, 100, 100), colour)
        pix.save(os.path.join(out, name))


def write(path, pages, edit, archive):
    writer = pymupdf.DocumentWriter(path)
    for n in pages:
        story = pymupdf.Story(page_html(n, edit), archive=archive)
        story.place(BODY)
        device = writer.begin_page(PAGE)
        story.draw(device)
        writer.end_page()
    writer.close()


EDITS = {
    "identical": [1, 2, 3, 4, 5],
    "word": [1, 2, 3, 4, 5],
    "paragraph": [1, 2, 3, 4, 5],
    "removed": [1, 2, 4, 5],
    "swapped": [1, 3, 2, 4, 5],
    "image": [1, 2, 3, 4, 5],
    "table": [1, 2, 3, 4, 5],
    "rewritten": [1, 2, 3, 4, 5],
}


def scanned(out, name):
    """The file's pages as images at 100 dpi: pages without a text layer, like a scan."""
    source, scan = pymupdf.open(os.path.join(out, f"{name}.pdf")), pymupdf.open()
    for page in source:
        copy = scan.new_page(width=page.rect.width, height=page.rect.height)
        copy.insert_image(copy.rect, pixmap=page.get_pixmap(dpi=100))
    scan.save(os.path.join(out, f"scan-{name}.pdf"), garbage=1, deflate=True)


def long_pair(out, count):
    """N pages of a few lines each; the new file has page 7's first word replaced."""
    for name in ("long-old.pdf", "long-new.pdf"):
        doc = pymupdf.open()
        for n in range(1, count + 1):
            page = doc.new_page(width=PAGE.width, height=PAGE.height)
            text = sentence(n, 1)
            if name == "long-new.pdf" and n == 7:
                text = text.replace("Paragraph", "Section", 1)
            page.insert_textbox(BODY, f"Page {n}\n{text}\n{sentence(n, 2)}", fontsize=11)
        doc.save(os.path.join(out, name), garbage=1, deflate=True)


def many_changes(out, count):
    """One page of 2 x `count` small words; the new file changes every second one."""
    for name in ("many-old.pdf", "many-new.pdf"):
        words = [f"w{k}" if k % 2 == 0 or name == "many-old.pdf" else f"x{k}" for k in range(2 * count)]
        doc = pymupdf.open()
        page = doc.new_page(width=PAGE.width, height=PAGE.height)
        page.insert_textbox(page.rect + (20, 20, -20, -20), " ".join(words), fontsize=5)
        doc.save(os.path.join(out, name))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    if len(sys.argv) > 2 and sys.argv[2] in ("long", "many"):
        (long_pair if sys.argv[2] == "long" else many_changes)(out, int(sys.argv[3]))
        return
    images(out)
    archive = pymupdf.Archive(out)
    write(os.path.join(out, "old.pdf"), EDITS["identical"], None, archive)
    for edit, pages in EDITS.items():
        write(os.path.join(out, f"{edit}.pdf"), pages, edit, archive)
    for name in ("old", "image", "removed"):
        scanned(out, name)


if __name__ == "__main__":
    main()
