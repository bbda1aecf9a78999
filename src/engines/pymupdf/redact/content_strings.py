# Marked-content properties written inside a content stream (`/Span <</Alt (…) /ActualText (…)>>
# BDC`, and DP): MuPDF's redaction removes glyphs and keeps these dictionaries as they are, so
# their strings are cleaned here. The lexer knows just enough of the content syntax (PDF 32000-1
# §7.2, §7.8.2, §8.9.7) to find the strings inside dictionaries: strings, hex strings, comments,
# dictionary brackets, and inline image data (skipped, it is binary).
import re

from pdf_objects import unescape_literal

WHITESPACE = b"\x00\t\n\x0c\r "
# Where the lexer has something to do: a string, a dictionary bracket, a comment, an inline image.
INTERESTING = re.compile(rb"[(<>%]|ID")


def _literal_end(data, i):
    """Index just past the literal string that opens at `i` (balanced parentheses, escapes)."""
    depth, i = 0, i
    while i < len(data):
        c = data[i]
        if c == 0x5C:
            i += 2
            continue
        if c == 0x28:
            depth += 1
        elif c == 0x29:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(data)


def _inline_image_end(data, i):
    """Index past `EI` of an inline image whose data starts after the `ID` operator at `i`."""
    j = i
    while True:
        j = data.find(b"EI", j)
        if j < 0:
            return len(data)
        before = data[j - 1] if j > 0 else 0x20
        after = data[j + 2] if j + 2 < len(data) else 0x20
        if before in WHITESPACE and after in WHITESPACE:
            return j + 2
        j += 2


def dictionary_strings(data):
    """(start, end, bytes) of every string inside a dictionary of the content stream `data`."""
    found, depth, i = [], 0, 0
    while i < len(data):
        hit = INTERESTING.search(data, i)
        if hit is None:
            break
        i = hit.start()
        c = data[i]
        if c == 0x25:  # comment to the end of the line
            while i < len(data) and data[i] not in b"\r\n":
                i += 1
        elif data[i:i + 2] == b"<<":
            depth += 1
            i += 2
            continue
        elif data[i:i + 2] == b">>":
            depth = max(0, depth - 1)
            i += 2
            continue
        elif c == 0x28:
            end = _literal_end(data, i)
            if depth:
                found.append((i, end, unescape_literal(data[i + 1:end - 1])))
            i = end
            continue
        elif c == 0x3C:
            end = data.find(b">", i)
            end = len(data) if end < 0 else end + 1
            if depth:
                digits = bytes(ch for ch in data[i + 1:end - 1] if ch not in WHITESPACE)
                try:
                    found.append((i, end, bytes.fromhex((digits + b"0" * (len(digits) % 2)).decode("ascii"))))
                except ValueError:
                    pass
            i = end
            continue
        elif data[i:i + 2] == b"ID" and (i == 0 or data[i - 1] in WHITESPACE) and (
            i + 2 >= len(data) or data[i + 2] in WHITESPACE
        ):
            i = _inline_image_end(data, i + 3)
            continue
        i += 1
    return found


def hex_text(text):
    """A text string as a hex string: PDFDocEncoding's ASCII part as is, else UTF-16BE with a mark."""
    raw = text.encode("ascii") if text.isascii() else b"\xfe\xff" + text.encode("utf-16-be")
    return b"<" + raw.hex().upper().encode("ascii") + b">"


def scrub_content(data, terms):
    """`data` with matches removed from its dictionaries' strings, and how many strings changed."""
    if b"<<" not in data:
        return data, 0
    pieces, last, changed = [], 0, 0
    for start, end, raw in dictionary_strings(data):
        clean = terms.scrub_bytes(raw)
        if clean is None:
            continue
        pieces += [data[last:start], hex_text(clean)]
        last, changed = end, changed + 1
    if not changed:
        return data, 0
    pieces.append(data[last:])
    return b"".join(pieces), changed
