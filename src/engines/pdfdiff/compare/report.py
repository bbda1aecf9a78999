# The JSON report, written as the pairs are compared: each changed pair's entry goes to a part
# file at once (nothing of it is kept), and `finish` writes the report with its summary first and
# the entries copied after it. Rectangles are in PDF points from the bottom left of the unrotated
# page, as the other tools take them.
import json
import os
import shutil

import pymupdf


def _pdf_rect(page, rect):
    r = pymupdf.Rect(rect) * ~page.transformation_matrix
    return [round(v, 2) for v in (r.x0, r.y0, r.x1, r.y1)]


def _pdf_point(page, point):
    p = pymupdf.Point(point) * ~page.transformation_matrix
    return [round(p.x, 2), round(p.y, 2)]


def _side(page, side):
    out = {"text": side["text"], "rects": [_pdf_rect(page, r) for r in side["rects"]]}
    if "at" in side:
        out["at"] = _pdf_point(page, side["at"])
    return out


class Report:
    def __init__(self, path, old, new):
        self.path, self.part = path, path + ".pages"
        self.pages = open(self.part, "w", encoding="utf-8")
        self.old_count, self.new_count = old.page_count, new.page_count
        self.first = True
        self.count = {"pairs": 0, "pages_changed": 0, "text_changes": 0, "visual_regions": 0}
        self.moved, self.removed_pages, self.added_pages = [], [], []

    def pair(self, old_page, new_page, similarity, moved, entry):
        self.count["pairs"] += 1
        numbers = {"old": old_page.number + 1, "new": new_page.number + 1}
        if moved:
            self.moved.append(numbers)
        if entry is None and not moved:
            return
        out = {**numbers, "moved": moved, "similarity": round(similarity, 4)}
        if entry and "text" in entry:
            out["text_changes"] = [
                {"type": c["type"], "old": _side(old_page, c["old"]), "new": _side(new_page, c["new"])}
                for c in entry["text"]
            ]
            out["text_truncated"] = entry["text_truncated"]
            self.count["text_changes"] += len(entry["text"])
        if entry and "visual" in entry:
            visual = entry["visual"]
            out["visual"] = {
                "score": round(visual["score"], 6),
                "regions": [{"rect": _pdf_rect(new_page, r), "pixels": p} for p, r in visual["regions"]],
                "regions_truncated": visual["regions_truncated"],
            }
            self.count["visual_regions"] += len(visual["regions"])
        if entry:
            self.count["pages_changed"] += 1
        self.pages.write(("" if self.first else ",\n") + json.dumps(out, ensure_ascii=False))
        self.first = False

    def removed(self, number):
        self.removed_pages.append(number)

    def added(self, number):
        self.added_pages.append(number)

    def finish(self, job):
        self.pages.close()
        summary = {
            "identical": not (self.count["pages_changed"] or self.moved or self.removed_pages
                              or self.added_pages),
            "old_page_count": self.old_count,
            "new_page_count": self.new_count,
            **self.count,
            "pages_added": self.added_pages,
            "pages_removed": self.removed_pages,
            "pages_moved": self.moved,
        }
        head = {"mode": job["mode"], "dpi": job["dpi"], "threshold": job["threshold"], **summary}
        with open(self.path, "w", encoding="utf-8") as out:
            out.write(json.dumps(head, ensure_ascii=False)[:-1] + ',\n"pages": [\n')
            with open(self.part, encoding="utf-8") as part:
                shutil.copyfileobj(part, out)
            out.write("\n]}\n")
        os.unlink(self.part)
        return summary
