# Writes the office half of the structure benchmark's ground truth (bench/structure/sources/NN-name.fodt):
# flat OpenDocument text files (one readable XML file each) with headings of three levels, nested
# bulleted and numbered lists, tables with merged header cells, two-column sections, links and a page
# footer ("Page n of m") and header. The bench packs each into an .odt (pack_odt.py) and renders it
# through Quire's office-to-pdf; score.py reads the .fodt itself as the ground truth. Seeded, so
# running it again writes the same files; the files are committed and are the ground truth.
import random
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from write_sources import FOOTERS, HEADINGS, NOUNS, VERBS, ADJS, paragraph

OUT = Path(__file__).parent / "sources"
FIRST = 21
TOPICS = [
    ("Ferry Service Review", "ferry"), ("Allotment Waiting List", "allotment"),
    ("Swimming Pool Refit", "pool"), ("Street Lighting Survey", "lighting"),
    ("Youth Club Funding", "youth"), ("Tram Depot Study", "tram"),
]

HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
 xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
 xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"
 xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:dc="http://purl.org/dc/elements/1.1/"
 xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"
 office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:meta><dc:title>{title}</dc:title><dc:language>en</dc:language></office:meta>
<office:font-face-decls>
 <style:font-face style:name="DejaVu Serif" svg:font-family="'DejaVu Serif'" style:font-family-generic="roman"/>
</office:font-face-decls>
<office:styles>
 <style:default-style style:family="paragraph">
  <style:paragraph-properties fo:margin-top="0pt" fo:margin-bottom="5pt"/>
  <style:text-properties style:font-name="DejaVu Serif" fo:font-size="11pt" fo:language="en" fo:country="GB"/>
 </style:default-style>
 <style:style style:name="Standard" style:family="paragraph"/>
 <style:style style:name="Text_20_body" style:display-name="Text body" style:family="paragraph"
  style:parent-style-name="Standard"><style:paragraph-properties fo:margin-bottom="6pt" fo:line-height="120%"/></style:style>
 <style:style style:name="Heading" style:family="paragraph" style:parent-style-name="Standard">
  <style:paragraph-properties fo:margin-top="12pt" fo:margin-bottom="6pt" fo:keep-with-next="always"/>
  <style:text-properties fo:font-weight="bold"/></style:style>
 <style:style style:name="Heading_20_1" style:display-name="Heading 1" style:family="paragraph"
  style:parent-style-name="Heading" style:default-outline-level="1"><style:text-properties fo:font-size="22pt"/></style:style>
 <style:style style:name="Heading_20_2" style:display-name="Heading 2" style:family="paragraph"
  style:parent-style-name="Heading" style:default-outline-level="2"><style:text-properties fo:font-size="16pt"/></style:style>
 <style:style style:name="Heading_20_3" style:display-name="Heading 3" style:family="paragraph"
  style:parent-style-name="Heading" style:default-outline-level="3"><style:text-properties fo:font-size="13pt"/></style:style>
 <style:style style:name="Table_20_Contents" style:display-name="Table Contents" style:family="paragraph"
  style:parent-style-name="Standard"><style:paragraph-properties fo:margin-bottom="0pt"/></style:style>
 <style:style style:name="Table_20_Heading" style:display-name="Table Heading" style:family="paragraph"
  style:parent-style-name="Table_20_Contents"><style:text-properties fo:font-weight="bold"/></style:style>
 <style:style style:name="Running" style:family="paragraph" style:parent-style-name="Standard">
  <style:text-properties fo:font-size="8pt" fo:color="#444444"/></style:style>
</office:styles>
<office:automatic-styles>
 <style:page-layout style:name="pm1">
  <style:page-layout-properties fo:page-width="210mm" fo:page-height="297mm" fo:margin-top="12mm"
   fo:margin-bottom="12mm" fo:margin-left="18mm" fo:margin-right="18mm"/>
  <style:header-style><style:header-footer-properties fo:min-height="0mm" fo:margin-bottom="6mm"/></style:header-style>
  <style:footer-style><style:header-footer-properties fo:min-height="0mm" fo:margin-top="8mm"/></style:footer-style>
 </style:page-layout>
 <style:style style:name="Cols" style:family="section"><style:section-properties>
  <style:columns fo:column-count="2" fo:column-gap="8mm"/></style:section-properties></style:style>
 <style:style style:name="Tbl" style:family="table"><style:table-properties style:width="150mm"
  table:align="left" fo:margin-top="6pt" fo:margin-bottom="6pt"/></style:style>
 <style:style style:name="Cell" style:family="table-cell"><style:table-cell-properties
  fo:padding="1.5mm" fo:border="0.8pt solid #333333"/></style:style>
 <text:list-style style:name="Bullets">
  <text:list-level-style-bullet text:level="1" text:bullet-char="•"><style:list-level-properties
   text:list-level-position-and-space-mode="label-alignment"><style:list-level-label-alignment
   text:label-followed-by="listtab" fo:text-indent="-5mm" fo:margin-left="8mm"/></style:list-level-properties>
  </text:list-level-style-bullet>
  <text:list-level-style-bullet text:level="2" text:bullet-char="–"><style:list-level-properties
   text:list-level-position-and-space-mode="label-alignment"><style:list-level-label-alignment
   text:label-followed-by="listtab" fo:text-indent="-5mm" fo:margin-left="16mm"/></style:list-level-properties>
  </text:list-level-style-bullet>
 </text:list-style>
 <text:list-style style:name="Numbers">
  <text:list-level-style-number text:level="1" style:num-format="1" style:num-suffix="."><style:list-level-properties
   text:list-level-position-and-space-mode="label-alignment"><style:list-level-label-alignment
   text:label-followed-by="listtab" fo:text-indent="-6mm" fo:margin-left="9mm"/></style:list-level-properties>
  </text:list-level-style-number>
  <text:list-level-style-number text:level="2" style:num-format="a" style:num-suffix=")"><style:list-level-properties
   text:list-level-position-and-space-mode="label-alignment"><style:list-level-label-alignment
   text:label-followed-by="listtab" fo:text-indent="-6mm" fo:margin-left="18mm"/></style:list-level-properties>
  </text:list-level-style-number>
 </text:list-style>
</office:automatic-styles>
<office:master-styles>
 <style:master-page style:name="Standard" style:page-layout-name="pm1">{running}</style:master-page>
</office:master-styles>
<office:body><office:text>
"""
# Running lines are page-style content, not body: not part of the ground truth (score.py reads the body).
RUNNING = ("<style:header><text:p text:style-name=\"Running\">{header}</text:p></style:header>"
           "<style:footer><text:p text:style-name=\"Running\">{footer}<text:tab/>Page <text:page-number/>"
           " of <text:page-count/></text:p></style:footer>")
TAIL = "</office:text></office:body>\n</office:document>\n"


def p(text, style="Text_20_body"):
    return f'<text:p text:style-name="{style}">{escape(text)}</text:p>'


def h(text, level):
    return f'<text:h text:style-name="Heading_20_{level}" text:outline-level="{level}">{escape(text)}</text:h>'


def nested_list(rng, ordered):
    """A list with some items holding a list of the other kind, as in the HTML sources."""
    outer, inner = ("Numbers", "Bullets") if ordered else ("Bullets", "Numbers")
    items = []
    for _ in range(rng.randint(3, 5)):
        item = p(" ".join([rng.choice(ADJS), rng.choice(NOUNS), rng.choice(VERBS)]).capitalize(), "Standard")
        if rng.random() < 0.5:
            sub = "".join(f"<text:list-item>{p(f'{rng.choice(ADJS).capitalize()} {rng.choice(NOUNS)}', 'Standard')}"
                          "</text:list-item>" for _ in range(rng.randint(2, 3)))
            item += f'<text:list text:style-name="{inner}">{sub}</text:list>'
        items.append(f"<text:list-item>{item}</text:list-item>")
    return f'<text:list text:style-name="{outer}">{"".join(items)}</text:list>'


def cell(text, heading=False, cols=1, rows=1):
    span = (f' table:number-columns-spanned="{cols}"' if cols > 1 else "") + \
           (f' table:number-rows-spanned="{rows}"' if rows > 1 else "")
    style = "Table_20_Heading" if heading else "Table_20_Contents"
    return f'<table:table-cell table:style-name="Cell" office:value-type="string"{span}>{p(text, style)}</table:table-cell>'


COVERED = "<table:covered-table-cell/>"


def table(rng, name, merged):
    rows = rng.randint(3, 6)
    label = rng.choice(["Site", "Item", "Route", "Ward", "Unit"])
    if merged:
        cols = 4
        metric = rng.choice(["Cost", "Count", "Hours"])
        head = (f"<table:table-row>{cell(label, True, rows=2)}{cell(metric, True, cols=2)}{COVERED}"
                f"{cell('Note', True, rows=2)}</table:table-row>"
                f"<table:table-row>{COVERED}{cell('2023', True)}{cell('2024', True)}{COVERED}</table:table-row>")
    else:
        cols = rng.randint(3, 5)
        names = rng.sample(["Total", "Share", "Change", "Budget", "Actual", "Target", "Staff"], cols - 1)
        head = "<table:table-row>" + "".join(cell(n, True) for n in [label, *names]) + "</table:table-row>"
    body = []
    for r in range(rows):
        cells = [f"{rng.choice(NOUNS).capitalize()} {r + 1}"]
        for c in range(cols - 1):
            cells.append(rng.choice(["yes", "no", "open"]) if merged and c == cols - 2 else str(rng.randint(10, 990)))
        body.append("<table:table-row>" + "".join(cell(x) for x in cells) + "</table:table-row>")
    return (f'<table:table table:name={quoteattr(name)} table:style-name="Tbl">'
            f'<table:table-column table:number-columns-repeated="{cols}"/>'
            f"<table:table-header-rows>{head}</table:table-header-rows>{''.join(body)}</table:table>")


def document(i, title, rng):
    parts = [h(title, 1), p(paragraph(rng))]
    for n, heading in enumerate(rng.sample(HEADINGS, rng.randint(4, 6))):
        parts.append(h(heading, 2))
        kind = (i + n) % 5
        if kind == 0:
            parts.append(p(paragraph(rng)))
            parts.append(nested_list(rng, ordered=rng.random() < 0.5))
        elif kind == 1:
            parts.append(p(paragraph(rng, 2)))
            parts.append(table(rng, f"Table{n}", merged=(i + n) % 2 == 0))
        elif kind == 2:
            cols = "".join(p(paragraph(rng, 4)) for _ in range(4))
            parts.append(f'<text:section text:style-name="Cols" text:name="Columns{n}">{cols}</text:section>')
        elif kind == 3:
            parts.append(p(paragraph(rng)))
            parts.append(h(f"{rng.choice(HEADINGS)} details", 3))
            link = (f'<text:a xlink:type="simple" xlink:href="https://example.org/{i}/{n}">published notes</text:a>')
            parts.append(f'<text:p text:style-name="Text_20_body">{escape(paragraph(rng))} See the {link} for more.</text:p>')
        else:
            parts.append(p(paragraph(rng)))
            parts.append(p(paragraph(rng)))
    running = RUNNING.format(header=escape(title), footer=escape(FOOTERS[i % len(FOOTERS)])) if i % 3 != 2 else ""
    return HEAD.format(title=escape(title), running=running) + "\n".join(parts) + "\n" + TAIL


def main():
    OUT.mkdir(exist_ok=True)
    for i, (title, slug) in enumerate(TOPICS):
        rng = random.Random(2000 + i)
        (OUT / f"{FIRST + i:02d}-{slug}.fodt").write_text(document(i, title, rng), encoding="utf-8")


if __name__ == "__main__":
    main()
