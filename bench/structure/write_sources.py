# Writes the ground-truth sources of the structure benchmark (bench/structure/sources/NN-name.html):
# 20 HTML documents with headings of three levels, nested bulleted and numbered lists, tables with
# merged header cells, two-column sections, links and a running footer repeated on every page. Seeded,
# so running it again writes the same files; the files are committed and are the ground truth.
import random
from html import escape
from pathlib import Path

OUT = Path(__file__).parent / "sources"

TOPICS = [
    ("Harbour Survey", "harbour"), ("Orchard Yields", "orchard"), ("Bridge Inspection", "bridge"),
    ("Library Renovation", "library"), ("Water Quality", "water"), ("Rail Timetable Review", "rail"),
    ("School Meals Study", "meals"), ("Wind Farm Proposal", "wind"), ("Museum Annual Review", "museum"),
    ("Forest Inventory", "forest"), ("Clinic Waiting Times", "clinic"), ("Road Safety Audit", "road"),
    ("Bakery Business Plan", "bakery"), ("River Flood Plan", "river"), ("Theatre Season", "theatre"),
    ("Cycling Network", "cycling"), ("Archive Digitisation", "archive"), ("Market Hall Lease", "market"),
    ("Solar Roof Pilot", "solar"), ("Village Census", "census"),
]
NOUNS = ("committee council budget season survey report harvest station garden village station network "
         "bridge river market school museum clinic archive volunteer engineer visitor resident farmer "
         "timetable schedule estimate contract meeting programme district county region office").split()
VERBS = ("reviewed approved measured recorded reported improved reduced extended described prepared "
         "inspected counted published discussed planned delivered repaired replaced").split()
ADJS = ("annual northern southern careful modest steady early late public local careful detailed "
        "seasonal regional current previous second final small large").split()
HEADINGS = ("Background Scope Method Findings Costs Schedule Risks Outcomes Recommendations Staffing "
            "Maintenance Funding Consultation Summary Appendix Timeline Equipment Partners").split()
FOOTERS = ["Confidential draft for internal review", "Prepared by the planning office",
           "Public record, reproduced with permission", "Working paper, not for citation"]


def sentence(rng):
    words = [rng.choice(ADJS), rng.choice(NOUNS), rng.choice(VERBS), "the", rng.choice(ADJS),
             rng.choice(NOUNS)]
    extra = rng.choice(["in the spring", "before the winter", "with the residents", "over two years",
                        "across the district", "for the next season", "at the last meeting"])
    text = " ".join(words + extra.split())
    return text[0].upper() + text[1:] + "."


def paragraph(rng, n=None):
    return " ".join(sentence(rng) for _ in range(n or rng.randint(3, 6)))


def nested_list(rng, ordered):
    tag = "ol" if ordered else "ul"
    items = []
    for _ in range(rng.randint(3, 5)):
        item = escape(" ".join([rng.choice(ADJS), rng.choice(NOUNS), rng.choice(VERBS)]).capitalize())
        if rng.random() < 0.4:
            sub = "".join(f"<li>{escape(rng.choice(ADJS).capitalize())} {escape(rng.choice(NOUNS))}</li>"
                          for _ in range(rng.randint(2, 3)))
            item += f"<{'ul' if ordered else 'ol'}>{sub}</{'ul' if ordered else 'ol'}>"
        items.append(f"<li>{item}</li>")
    return f"<{tag}>{''.join(items)}</{tag}>"


def table(rng, merged):
    cols = rng.randint(3, 5)
    rows = rng.randint(3, 6)
    label = rng.choice(["Site", "Item", "Route", "Ward", "Unit"])
    if merged:
        years = [2023, 2024]
        metric = rng.choice(["Cost", "Count", "Hours"])
        head = (f"<tr><th rowspan=\"2\">{label}</th><th colspan=\"2\">{metric}</th>"
                f"<th rowspan=\"2\">Note</th></tr><tr><th>{years[0]}</th><th>{years[1]}</th></tr>")
        cols = 4
    else:
        names = rng.sample(["Total", "Share", "Change", "Budget", "Actual", "Target", "Staff"], cols - 1)
        head = "<tr>" + f"<th>{label}</th>" + "".join(f"<th>{n}</th>" for n in names) + "</tr>"
    body = []
    for r in range(rows):
        cells = [f"{rng.choice(NOUNS).capitalize()} {r + 1}"]
        for c in range(cols - 1):
            cells.append(rng.choice(["yes", "no", "open"]) if merged and c == cols - 2
                         else str(rng.randint(10, 990)))
        body.append("<tr>" + "".join(f"<td>{escape(x)}</td>" for x in cells) + "</tr>")
    return f"<table><thead>{head}</thead><tbody>{''.join(body)}</tbody></table>"


STYLE = """
@page { size: A4; margin: 20mm 18mm 24mm 18mm; }
body { font-family: 'DejaVu Serif', serif; font-size: 11pt; line-height: 1.35; }
h1 { font-size: 22pt; margin: 0 0 10pt; } h2 { font-size: 16pt; margin: 14pt 0 6pt; }
h3 { font-size: 13pt; margin: 10pt 0 4pt; }
ul { list-style-type: "\\2022  "; } ul ul, ol ul { list-style-type: "\\2013  "; }
table { border-collapse: collapse; margin: 8pt 0; } th, td { border: 0.8pt solid #333; padding: 3pt 6pt; }
th { font-weight: bold; } .cols { column-count: 2; column-gap: 22pt; }
"""
# Running lines in the page margins (CSS Paged Media margin boxes): not part of the body, so not of
# the ground truth; on every page, with the page number in some.
RUNNING = """
@page {{ @bottom-center {{ content: "{footer}"; font-size: 8pt; color: #444; }}
        @bottom-right {{ content: "Page " counter(page) " of " counter(pages); font-size: 8pt; }}
        @top-right {{ content: "{header}"; font-size: 8pt; color: #444; }} }}
"""


def document(i, title, rng):
    parts = [f"<h1>{escape(title)}</h1>", f"<p>{escape(paragraph(rng))}</p>"]
    headings = rng.sample(HEADINGS, rng.randint(4, 6))
    for h, heading in enumerate(headings):
        parts.append(f"<h2>{escape(heading)}</h2>")
        kind = (i + h) % 5
        if kind == 0:
            parts.append(f"<p>{escape(paragraph(rng))}</p>")
            parts.append(nested_list(rng, ordered=rng.random() < 0.5))
        elif kind == 1:
            parts.append(f"<p>{escape(paragraph(rng, 2))}</p>")
            parts.append(table(rng, merged=(i + h) % 2 == 0))
        elif kind == 2:
            cols = "".join(f"<p>{escape(paragraph(rng, 4))}</p>" for _ in range(4))
            parts.append(f"<div class=\"cols\">{cols}</div>")
        elif kind == 3:
            parts.append(f"<p>{escape(paragraph(rng))}</p>")
            parts.append(f"<h3>{escape(rng.choice(HEADINGS))} details</h3>")
            parts.append(f"<p>{escape(paragraph(rng))} See the <a href=\"https://example.org/{i}/{h}\">"
                         f"published notes</a> for more.</p>")
        else:
            parts.append(f"<p>{escape(paragraph(rng))}</p>")
            parts.append(f"<p>{escape(paragraph(rng))}</p>")
    running = RUNNING.format(footer=FOOTERS[i % len(FOOTERS)], header=title) if i % 4 != 3 else ""
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(title)}</title>"
            f"<style>{STYLE}{running}</style></head><body>{''.join(parts)}</body></html>\n")


def main():
    OUT.mkdir(exist_ok=True)
    for i, (title, slug) in enumerate(TOPICS):
        rng = random.Random(1000 + i)
        (OUT / f"{i + 1:02d}-{slug}.html").write_text(document(i, title, rng), encoding="utf-8")


if __name__ == "__main__":
    main()
