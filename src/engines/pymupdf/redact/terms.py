# What is being removed: the job's texts and patterns as compiled regular expressions, and the ways
# a PDF string or stream may hold them (PDFDocEncoding, UTF-16 either way round, UTF-8).
import re
from xml.sax.saxutils import escape

from pii import Detector

# Exit code the TypeScript adapter maps to invalid_options (src/engines/pymupdf/pymupdf.ts).
EXIT_BAD_PATTERN = 5


class Terms:
    def __init__(self, texts, patterns, ignore_case, detect=(), region=None):
        flags = re.IGNORECASE if ignore_case else 0
        try:
            literal = [re.compile(re.escape(t), flags) for t in texts]
            self.patterns = literal + [re.compile(p, flags) for p in patterns]
        except re.error:
            # No detail: the pattern may be what is being hidden, and stderr reaches the adapter.
            raise SystemExit(EXIT_BAD_PATTERN) from None
        # Personal data found by kind (pii.py): a Detector is used wherever a pattern is.
        self.detector = Detector(detect, region) if detect else None
        if self.detector:
            self.patterns.append(self.detector)
        # In XML (XMP, XFA) a literal text with & < > " ' is written escaped.
        escaped = {escape(t, {'"': "&quot;", "'": "&apos;"}) for t in texts} - set(texts)
        self.xml_patterns = self.patterns + [re.compile(re.escape(t), flags) for t in escaped]

    def __bool__(self):
        return bool(self.patterns)

    def search(self, text):
        return any(p.search(text) for p in self.patterns)

    def scrub(self, text, xml=False):
        for pattern in self.xml_patterns if xml else self.patterns:
            text = pattern.sub("", text)
        return text

    def scrub_bytes(self, raw):
        """The text `raw` holds with every match removed, or None when no reading of it matches."""
        for text in readings(raw):
            if self.search(text):
                return self.scrub(text)
        return None

    def search_bytes(self, raw):
        return any(self.search(text) for text in readings(raw))


def readings(raw):
    """Every way a reader may decode `raw`: by its byte-order mark, else as PDFDocEncoding (close to
    Latin-1 for letters and digits), UTF-8, and UTF-16 without a mark in both byte orders."""
    if raw[:2] == b"\xfe\xff":
        return [raw[2:].decode("utf-16-be", "replace")]
    if raw[:2] == b"\xff\xfe":
        return [raw[2:].decode("utf-16-le", "replace")]
    if raw[:3] == b"\xef\xbb\xbf":
        return [raw[3:].decode("utf-8", "replace")]
    texts = [raw.decode("latin-1"), raw.decode("utf-8", "replace")]
    if len(raw) >= 2 and b"\x00" in raw:
        texts += [raw.decode("utf-16-be", "replace"), raw.decode("utf-16-le", "replace")]
    return texts
