# Compare driver of the pdfdiff engine, run inside the document sandbox: reads the job as JSON on
# stdin (the two files, selected pages, mode, dpi, noise threshold, where to write), matches pages
# (matching.py), then compares each pair of pages one at a time (text_diff.py, visual.py), so
# memory stays flat on long files; writes the JSON report (and the marked-up new file) into the
# exchange folder with a summary of counts and page numbers beside it, and prints `progress <done>
# <total>` lines on stderr. Neither the summary nor stderr carries any text of the files.
import json
import os
import sys

# One thread: numpy's BLAS would start a pool per core, each counted against the memory cap.
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import pymupdf  # noqa: E402

# MuPDF prints its errors and warnings about damaged files on stdout ("MuPDF error: …"); they are
# not ours to relay (they can quote the file), and the summary is a file of its own.
pymupdf.TOOLS.mupdf_display_errors(False)
pymupdf.TOOLS.mupdf_display_warnings(False)
from marking import mark_page, mark_regions, mark_text  # noqa: E402
from matching import match_pages  # noqa: E402
from report import Report  # noqa: E402
from signatures import Signature, page_words  # noqa: E402
from text_diff import text_changes  # noqa: E402
from visual import visual_difference  # noqa: E402

EXIT_UNREADABLE = 3
# A pair of pages costs about this many signature readings (words twice, two renders).
PAIR_WEIGHT = 3


class Progress:
    def __init__(self, total):
        self.done, self.total = 0, max(1, total)

    def add(self, units):
        self.done = min(self.total, self.done + units)
        sys.stderr.write(f"progress {self.done} {self.total}\n")
        sys.stderr.flush()


def open_pdf(path, selection):
    """The document and its selected pages (0-based); a file MuPDF cannot read as qpdf did is unreadable."""
    try:
        doc = pymupdf.open(path)
    except Exception:
        sys.exit(EXIT_UNREADABLE)
    # qpdf opened (and the runner decrypted) the file; MuPDF may still find it locked, or fewer pages
    # in a damaged file than qpdf reconstructed.
    selected = selection if selection is not None else list(range(doc.page_count))
    if doc.needs_pass or doc.page_count == 0 or any(n >= doc.page_count for n in selected):
        sys.exit(EXIT_UNREADABLE)
    return doc, selected


def signatures(doc, selected, progress):
    out = []
    for number in selected:
        out.append(Signature(doc[number]))
        progress.add(1)
    return out


def compare_pair(job, old_page, new_page, marked):
    """The entry of one pair for the report, or None when nothing differs."""
    entry = {}
    if job["mode"] != "visual":
        changes, cut = text_changes(page_words(old_page), page_words(new_page))
        if changes:
            entry["text"], entry["text_truncated"] = changes, cut
    else:
        changes = []
    if job["mode"] != "text":
        score, regions, cut = visual_difference(old_page, new_page, job["dpi"], job["threshold"])
        if score > 0:
            entry["visual"] = {"score": score, "regions": regions, "regions_truncated": cut}
    if marked:
        mark_text(new_page, changes)
        mark_regions(new_page, entry.get("visual", {}).get("regions", []), changes)
    return entry or None


def main():
    job = json.load(sys.stdin)
    try:
        compare(job)
    except (IndexError, ValueError):
        # MuPDF's page access on a damaged file: its page count can shrink once a page is loaded
        # and repaired (pdfium's document_aactions.pdf: 3 pages, then 1), or a page is refused.
        sys.exit(EXIT_UNREADABLE)


def compare(job):
    old, old_sel = open_pdf(job["old"], job["old_pages"])
    new, new_sel = open_pdf(job["new"], job["new_pages"])
    progress = Progress(len(old_sel) + len(new_sel) + PAIR_WEIGHT * min(len(old_sel), len(new_sel)))
    pairs, moved, removed, added = match_pages(signatures(old, old_sel, progress),
                                               signatures(new, new_sel, progress))
    marked = job["marked"] is not None
    report = Report(job["report"], old, new)
    for i in sorted(pairs):
        j, similarity = pairs[i]
        old_page, new_page = old[old_sel[i]], new[new_sel[j]]
        entry = compare_pair(job, old_page, new_page, marked)
        report.pair(old_page, new_page, similarity, i in moved, entry)
        if marked and i in moved:
            mark_page(new_page, f"Moved: this was page {old_sel[i] + 1} of the old file")
        progress.add(PAIR_WEIGHT)
    new_of = {old_sel[i]: new_sel[j] for i, (j, _) in pairs.items()}
    for i in removed:
        report.removed(old_sel[i] + 1)
        if marked:
            before = [new_of[p] for p in old_sel[:i] if p in new_of]
            where = "after" if before else "before"
            page = new[max(before)] if before else new[new_sel[0] if new_sel else 0]
            mark_page(page, f"Page {old_sel[i] + 1} of the old file was removed {where} this page")
    for j in added:
        report.added(new_sel[j] + 1)
        if marked:
            mark_page(new[new_sel[j]], "Added: this page is not in the old file")
    summary = report.finish(job)
    if marked:
        new.save(job["marked"], garbage=1, deflate=True)
    with open(job["summary"], "w", encoding="utf-8") as out:
        json.dump(summary, out)


if __name__ == "__main__":
    main()
