# The marked-up copy of the new file (output `pdf`): its own pages with annotations a reader sees
# and can list: inserted words highlighted green, replaced words yellow (the old words in the
# note), deleted words as a red caret where they were (the words in its note), visual regions that
# no text change covers outlined blue, and a note on added, moved and removed pages. Annotations
# only: the page content is left as it is.
import pymupdf

GREEN, YELLOW, RED, BLUE = (0.2, 0.8, 0.2), (1, 0.85, 0), (0.9, 0.1, 0.1), (0.1, 0.4, 0.95)
NOTE_AT = pymupdf.Point(12, 12)
# Notes hold the changed words for a person; a long run is cut, the JSON report has it whole.
NOTE_MAX = 500


def _note(text):
    return text if len(text) <= NOTE_MAX else text[:NOTE_MAX] + "…"


def _finish(annot, color, content):
    annot.set_colors(stroke=color)
    annot.set_info(title="Quire compare", content=_note(content))
    annot.update()


def mark_text(page, changes):
    for change in changes:
        old, new = change["old"], change["new"]
        if change["type"] == "deleted":
            annot = page.add_caret_annot(new["at"])
            _finish(annot, RED, "Deleted: " + old["text"])
            continue
        annot = page.add_highlight_annot(new["rects"])
        if change["type"] == "inserted":
            _finish(annot, GREEN, "Inserted")
        else:
            _finish(annot, YELLOW, "Was: " + old["text"])


def mark_regions(page, regions, changes):
    covered = [r for c in changes for r in c["new"]["rects"]]
    for _, rect in regions:
        if any(rect.intersects(c) for c in covered):
            continue
        annot = page.add_rect_annot(rect)
        annot.set_border(width=1)
        _finish(annot, BLUE, "Changed in appearance")


def mark_page(page, text):
    annot = page.add_text_annot(NOTE_AT, _note(text))
    annot.set_colors(stroke=RED)
    annot.set_info(title="Quire compare")
    annot.update()
