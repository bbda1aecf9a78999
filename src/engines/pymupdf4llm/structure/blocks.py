# The page's Markdown as JSON blocks (heading, paragraph, list_item, table, image), each with its
# page, its bounding box and plain text: pymupdf4llm writes the Markdown in reading order and, with
# `extract_words`, the page's words in the same order, so each block's box is the union of the words
# it consumes. Tables take their boxes from the chunk's table list, in order.
import re

HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
LIST_ITEM = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+(.*)$")
IMAGE = re.compile(r"^!\[[^\]]*\]\(([^)]+)\)\s*$")
# Words passed over before a block gives up its box (a running line holds a few words).
MAX_SKIPPED = 12
# How far ahead a block's first word is looked for (the words of a table or a dropped line between).
WINDOW = 400
LINK = re.compile(r"\[([^\]]*)\]\(([^)]+)\)")


def plain(markdown):
    """Inline Markdown as plain text: links as their text, emphasis and code marks removed."""
    text = LINK.sub(r"\1", markdown)
    text = re.sub(r"<br\s*/?>", " ", text)
    text = re.sub(r"(\*\*|__|`|~~)", "", text)
    text = re.sub(r"(?<!\w)[*_](\S[^*_]*)[*_](?!\w)", r"\1", text)
    return " ".join(text.split())


def links(markdown):
    return [{"text": plain(t), "uri": u} for t, u in LINK.findall(markdown)]


def table_rows(lines):
    rows = []
    for line in lines:
        cells = [plain(c) for c in line.strip()[1:-1].split("|")]
        if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c) and any(cells):
            continue
        rows.append(["" if re.fullmatch(r"Col\d+", c) else c for c in cells])
    return rows


def parse(markdown):
    """Blocks of one page's Markdown, without boxes."""
    blocks, para, table = [], [], []

    def end_paragraph():
        if para:
            text = " ".join(para)
            blocks.append({"type": "paragraph", "text": plain(text), "links": links(text)})
            para.clear()

    def end_table():
        if table:
            blocks.append({"type": "table", "rows": table_rows(table)})
            table.clear()

    for line in markdown.splitlines():
        stripped = line.strip()
        if stripped.startswith("|") and stripped.endswith("|") and len(stripped) > 1:
            end_paragraph()
            table.append(stripped)
            continue
        end_table()
        heading, item, image = HEADING.match(stripped), LIST_ITEM.match(line), IMAGE.match(stripped)
        if not stripped or heading or item or image:
            end_paragraph()
        if heading:
            level = len(heading.group(1))
            blocks.append({"type": "heading", "level": level, "text": plain(heading.group(2))})
        elif image:
            blocks.append({"type": "image", "src": image.group(1), "text": ""})
        elif item:
            depth = len(item.group(1).expandtabs(4)) // 4
            body = item.group(3)
            blocks.append({
                "type": "list_item", "level": depth + 1, "ordered": item.group(2)[0].isdigit(),
                "text": plain(body), "links": links(body),
            })
        elif stripped and not re.fullmatch(r"-{3,}|\*{3,}", stripped):
            para.append(stripped)
    end_paragraph()
    end_table()
    return blocks


def squash(text):
    return re.sub(r"\W+", "", text.lower())


def union(boxes):
    return [round(min(b[0] for b in boxes), 2), round(min(b[1] for b in boxes), 2),
            round(max(b[2] for b in boxes), 2), round(max(b[3] for b in boxes), 2)]


def consume(words, at, want):
    """The words from `at` on that spell `want` (its first word looked for within a window; words
    the text does not hold, such as list markers, passed over), and where they end."""
    start = next((i for i in range(at, min(len(words), at + WINDOW))
                  if squash(words[i][4]) and want.startswith(squash(words[i][4]))), None)
    if start is None or not want:
        return [], at
    used, got, skipped, i = [], "", 0, start
    while i < len(words) and len(got) < len(want) and skipped <= MAX_SKIPPED:
        word = squash(words[i][4])
        if word and want.startswith(got + word):
            got += word
            used.append(words[i])
        elif word:
            skipped += 1
        i += 1
    return used, i


def place(blocks, words, tables):
    """Gives each block its box: the words its text consumes, in order; tables their own box."""
    at = 0
    table_boxes = iter(t["bbox"] for t in tables)
    for block in blocks:
        if block["type"] == "table":
            box = next(table_boxes, None)
            block["bbox"] = [round(v, 2) for v in box] if box else None
            cells = squash("".join(c for row in block["rows"] for c in row))
            while at < len(words) and squash(words[at][4]) and squash(words[at][4]) in cells:
                at += 1
            continue
        want = squash(block.get("text", ""))
        used, end = consume(words, at, want)
        at = end if used else at
        block["bbox"] = union(used) if used else None


def page_blocks(markdown, page, chunk):
    blocks = parse(markdown)
    place(blocks, chunk.get("words") or [], chunk.get("tables") or [])
    for b in blocks:
        b["page"] = page
        if b["type"] == "table":
            b["text"] = "\n".join(" | ".join(row) for row in b["rows"])
    return blocks
