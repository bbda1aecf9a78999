# Scores one Markdown conversion against its source (bench/structure/sources: HTML, or a flat
# OpenDocument text read by office_source.py): text similarity, heading precision/recall/F1 (text and
# level), table cell accuracy and reading-order errors.
# Usage: score.py SOURCE.html|SOURCE.fodt OUTPUT.md  -> one JSON line. Standard library only.
import json
import re
import sys
from difflib import SequenceMatcher
from html.parser import HTMLParser

from office_source import OfficeSource

BLOCKS = {"p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th"}


class Source(HTMLParser):
    """The source's blocks in document order, its headings and its tables (spans laid out)."""

    def __init__(self):
        super().__init__()
        self.blocks, self.headings, self.tables, self.paragraphs = [], [], [], []
        self.skip = 0
        self.stack = []
        self.text = None
        self.table = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("style", "title", "footer"):
            self.skip += 1
        elif tag == "table":
            self.table = {"rows": [], "spans": {}}
        elif tag == "tr" and self.table is not None:
            self.table["rows"].append([])
        if tag in BLOCKS:
            if self.text is not None:
                self.flush()
            self.stack.append(tag)
            self.text = []
            self.cell = (int(a.get("rowspan", 1)), int(a.get("colspan", 1)))

    def handle_endtag(self, tag):
        if tag in ("style", "title", "footer"):
            self.skip -= 1
        elif tag in BLOCKS and self.text is not None:
            self.flush()
        elif tag == "table" and self.table is not None:
            self.tables.append(layout(self.table["rows"]))
            self.table = None

    def flush(self):
        tag = self.stack.pop() if self.stack else "p"
        text = " ".join("".join(self.text).split())
        self.text = None
        if tag in ("td", "th") and self.table is not None:
            self.table["rows"][-1].append((text, *self.cell))
        if text:
            self.blocks.append(text)
            if tag[0] == "h" and tag[1:].isdigit():
                self.headings.append((norm(text), int(tag[1:])))
            if tag == "p":
                self.paragraphs.append(text)

    def handle_data(self, data):
        if self.skip:
            return
        if self.text is None:
            if data.strip():
                self.text = []
                self.stack.append("p")
            else:
                return
        self.text.append(data)


def layout(rows):
    """A grid of cell texts: a merged cell's text in its first slot, the slots it spans empty."""
    grid = {}
    for r, row in enumerate(rows):
        c = 0
        for text, rowspan, colspan in row:
            while (r, c) in grid:
                c += 1
            for dr in range(rowspan):
                for dc in range(colspan):
                    grid[(r + dr, c + dc)] = text if dr == dc == 0 else ""
            c += colspan
    height = max((r for r, _ in grid), default=-1) + 1
    width = max((c for _, c in grid), default=-1) + 1
    return [[grid.get((r, c), "") for c in range(width)] for r in range(height)]


def norm(text):
    return " ".join(re.findall(r"\w+", text.lower()))


def tokens(text):
    return re.findall(r"\w+", text.lower())


def markdown_parts(md):
    """Headings (text, level), tables (grids) and the plain text of a Markdown document."""
    md = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", md)
    md = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", md)
    md = re.sub(r"<!--.*?-->", " ", md, flags=re.S)
    md = re.sub(r"<br\s*/?>", " ", md)
    headings, tables, current = [], [], None
    for line in md.splitlines():
        s = line.strip()
        h = re.match(r"^(#{1,6})\s+(.*)$", s)
        if h:
            headings.append((norm(h.group(2).replace("*", "")), len(h.group(1))))
        if s.startswith("|") and s.endswith("|"):
            cells = [c.strip().replace("*", "") for c in s[1:-1].split("|")]
            if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
                continue
            if current is None:
                current = []
                tables.append(current)
            current.append(["" if re.fullmatch(r"Col\d+", c) else c for c in cells])
        else:
            current = None
    return headings, tables, md


def table_accuracy(truth, found):
    """Share of the source's non-empty cells found at their row and column in the best-aligned table."""
    wanted = sum(1 for row in truth for cell in row if cell)
    best = 0
    for grid in found:
        for offset in range(-2, 3):
            hits = 0
            for r, row in enumerate(truth):
                if not 0 <= r + offset < len(grid):
                    continue
                for c, cell in enumerate(row):
                    if cell and c < len(grid[r + offset]) and norm(grid[r + offset][c]) == norm(cell):
                        hits += 1
            best = max(best, hits)
    return best, wanted


def order_errors(paragraphs, out_tokens):
    """Paragraphs found out of order (each located by its first eight words), and those not found."""
    text = " ".join(out_tokens)
    positions, missing = [], 0
    for p in paragraphs:
        key = " ".join(tokens(p)[:8])
        at = text.find(key)
        if at < 0:
            missing += 1
        else:
            positions.append(at)
    errors = sum(1 for a, b in zip(positions, positions[1:], strict=False) if b < a)
    return errors, missing


def score(source, output_md, office=False):
    if office:
        src = OfficeSource(source, norm, layout)
    else:
        src = Source()
        src.feed(source)
    headings, tables, plain = markdown_parts(output_md)
    truth_tokens = tokens(" ".join(src.blocks))
    out_tokens = tokens(plain)
    similarity = SequenceMatcher(None, truth_tokens, out_tokens, autojunk=False).ratio()
    truth_h = list(src.headings)
    matched = 0
    remaining = list(headings)
    for h in truth_h:
        if h in remaining:
            remaining.remove(h)
            matched += 1
    cells = [table_accuracy(t, tables) for t in src.tables]
    errors, missing = order_errors(src.paragraphs, out_tokens)
    return {
        "similarity": round(similarity, 4),
        "headings_true": len(truth_h),
        "headings_found": len(headings),
        "headings_matched": matched,
        "cells_matched": sum(c[0] for c in cells),
        "cells_total": sum(c[1] for c in cells),
        "order_errors": errors,
        "paragraphs_missing": missing,
        "paragraphs": len(src.paragraphs),
    }


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as s, open(sys.argv[2], encoding="utf-8") as o:
        print(json.dumps(score(s.read(), o.read(), office=sys.argv[1].endswith(".fodt"))))
