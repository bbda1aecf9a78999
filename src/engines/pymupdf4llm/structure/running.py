# Running headers and footers: lines in the top or bottom band of a page whose text (digits aside, so
# "Page 3 of 9" matches "Page 4 of 9") comes back on most pages. Read from each page's line list, one
# page at a time; only the normalised texts of the band lines are kept between pages.
import re
from collections import Counter

# The share of the page height at the top and at the bottom where running lines are looked for.
BAND = 0.12
# Running lines stand at the same height on each page, to within this many points.
BUCKET = 6
# A line is running when it is on at least this share of the pages (and on two pages at least).
SHARE = 0.5


def normalise(text):
    return re.sub(r"\d+", "#", " ".join(re.findall(r"\w+", text.lower())))


def band_lines(page):
    """(text, height bucket) of the lines in the page's top and bottom bands, with their boxes."""
    height = page.rect.height
    seen = {}
    for block in page.get_text("dict")["blocks"]:
        for line in block.get("lines", []):
            y0, y1 = line["bbox"][1], line["bbox"][3]
            if y1 <= height * BAND or y0 >= height * (1 - BAND):
                text = normalise("".join(span["text"] for span in line["spans"]))
                if text:
                    seen[(text, round(y0 / BUCKET))] = line["bbox"]
    return seen


def running_lines(doc, pages):
    if len(pages) < 2:
        return set()
    counts = Counter()
    for number in pages:
        counts.update(band_lines(doc[number]).keys())
    least = max(2, SHARE * len(pages))
    return {text for text, n in counts.items() if n >= least}


def margins(page, repeated):
    """pymupdf4llm's (left, top, right, bottom) margins for the page that leave its running lines out."""
    if not repeated:
        return 0
    height = page.rect.height
    top, bottom = 0, 0
    for key, (_, y0, _, y1) in band_lines(page).items():
        if key not in repeated:
            continue
        if y1 <= height * BAND:
            top = max(top, y1 + 0.5)
        else:
            bottom = max(bottom, height - y0 + 0.5)
    return (0, top, 0, bottom)
