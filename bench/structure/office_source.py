# The ground truth of an office source (a flat OpenDocument text, .fodt) for score.py, in the shape of
# its HTML Source: the body's blocks in document order, its headings (text, level), its tables (spans
# laid out) and its paragraphs. Page headers and footers are page-style content outside the body, so
# not part of the truth, as the HTML sources' margin boxes. Standard library only.
import xml.etree.ElementTree as ET

NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
}


def q(prefix, name):
    return f"{{{NS[prefix]}}}{name}"


SPACES = {q("text", "tab"), q("text", "line-break"), q("text", "s")}


def flat(element):
    """An element's text, tabs, spaces and line breaks as spaces, whitespace collapsed."""

    def parts(node):
        yield " " if node.tag in SPACES else ""
        yield node.text or ""
        for child in node:
            yield from parts(child)
            yield child.tail or ""

    return " ".join("".join(parts(element)).split())


class OfficeSource:
    """`norm` and `layout` are score.py's: heading texts are kept normalised, tables as grids."""

    def __init__(self, fodt_text, norm, layout):
        self.norm, self.layout = norm, layout
        self.blocks, self.headings, self.tables, self.paragraphs = [], [], [], []
        body = ET.fromstring(fodt_text).find("office:body/office:text", NS)
        self.walk(body, in_list=False)

    def walk(self, element, in_list):
        for child in element:
            if child.tag == q("text", "h"):
                self.add(flat(child), heading=int(child.get(q("text", "outline-level"), "1")))
            elif child.tag == q("text", "p"):
                self.add(flat(child), paragraph=not in_list)
            elif child.tag == q("table", "table"):
                self.table(child)
            elif child.tag in (q("text", "list"), q("text", "list-item")):
                self.walk(child, in_list=True)
            else:
                self.walk(child, in_list)

    def add(self, text, heading=None, paragraph=False):
        if not text:
            return
        self.blocks.append(text)
        if heading:
            self.headings.append((self.norm(text), heading))
        elif paragraph:
            self.paragraphs.append(text)

    def table(self, element):
        rows = []
        for row in element.iter(q("table", "table-row")):
            cells = []
            for cell in row:
                if cell.tag != q("table", "table-cell"):
                    continue  # a covered cell: the slot of a merged one, laid out by its span
                text = " ".join(flat(p) for p in cell.iter(q("text", "p")))
                if text:
                    self.blocks.append(text)
                cells.append((text, int(cell.get(q("table", "number-rows-spanned"), "1")),
                              int(cell.get(q("table", "number-columns-spanned"), "1"))))
            rows.append(cells)
        self.tables.append(self.layout(rows))
