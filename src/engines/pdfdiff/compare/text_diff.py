# The text changes of one pair of pages: difflib's SequenceMatcher over the two pages' words in
# reading order; each run of inserted, deleted or replaced words is one change, with its words'
# rectangles (merged per line) on both pages, or, on the side where it has no words, the point
# where it would be.
from difflib import SequenceMatcher

import pymupdf

KINDS = {"replace": "replaced", "delete": "deleted", "insert": "inserted"}
# A page rewritten wholesale gives thousands of one-word changes; past this they are not listed.
MAX_CHANGES = 1000


def _line_rects(words):
    """MuPDF rects of `words`, consecutive words of one line merged into one rect."""
    rects, key = [], None
    for _, rect, block, line in words:
        if rects and (block, line) == key:
            rects[-1] = rects[-1] | rect
        else:
            rects.append(pymupdf.Rect(rect))
            key = (block, line)
    return rects


def _anchor(words, at):
    """The point (MuPDF) on a page where words would go before index `at`: after the word before."""
    if at > 0:
        rect = words[at - 1][1]
        return pymupdf.Point(rect.x1, (rect.y0 + rect.y1) / 2)
    if words:
        rect = words[0][1]
        return pymupdf.Point(rect.x0, (rect.y0 + rect.y1) / 2)
    return pymupdf.Point(0, 0)


def _side(words, start, end):
    chosen = words[start:end]
    if chosen:
        return {"text": " ".join(w[0] for w in chosen), "rects": _line_rects(chosen)}
    return {"text": "", "rects": [], "at": _anchor(words, start)}


def text_changes(old_words, new_words):
    """The changes from `old_words` to `new_words` (page_words lists), and whether some were left out."""
    matcher = SequenceMatcher(None, [w[0] for w in old_words], [w[0] for w in new_words], autojunk=False)
    changes = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if len(changes) == MAX_CHANGES:
            return changes, True
        changes.append({"type": KINDS[tag], "old": _side(old_words, i1, i2), "new": _side(new_words, j1, j2)})
    return changes, False
