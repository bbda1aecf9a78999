# What page matching knows of a page (matching.py): a hash of its words in order, the set of its
# distinct word pairs (each word with the next: pages of one document share most of their words,
# rarely their sequences) as a sorted array of hashes, and for a page without text a 16 x 16
# thumbnail. Kept
# for every page of both files, so it is small and fixed per page, never the page's text or pixels.
import hashlib
import unicodedata

import numpy as np
import pymupdf

THUMB = 16


def page_words(page):
    """The page's words in reading order: (text, MuPDF rect, block, line), text NFKC-normalised."""
    words = []
    for x0, y0, x1, y1, text, block, line, _ in page.get_text("words", sort=True):
        words.append((unicodedata.normalize("NFKC", text), pymupdf.Rect(x0, y0, x1, y1), block, line))
    return words


def thumbnail(page):
    """Mean grey of a 16 x 16 grid over the page, rendered small: what a scanned page looks like."""
    zoom = min(1.0, 96 / max(page.rect.width, page.rect.height, 1))
    pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csGRAY, alpha=False,
                          annots=False)
    grey = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width).astype(np.float32)
    rows = np.array_split(np.arange(pix.height), THUMB)
    cols = np.array_split(np.arange(pix.width), THUMB)
    return np.array([[grey[np.ix_(r, c)].mean() if len(r) and len(c) else 255 for c in cols] for r in rows],
                    dtype=np.float32)


class Signature:
    __slots__ = ("digest", "words", "thumb")

    def __init__(self, page):
        texts = [w[0] for w in page_words(page)]
        self.digest = hashlib.blake2b("\u0000".join(texts).encode(), digest_size=16).digest()
        shingles = zip(texts, texts[1:], strict=False) if len(texts) > 1 else ((t,) for t in texts)
        self.words = np.array(sorted({hash(s) for s in shingles}), dtype=np.int64)
        self.thumb = thumbnail(page) if not texts else None
        if self.thumb is not None:
            self.digest = hashlib.blake2b(np.round(self.thumb / 8).astype(np.uint8).tobytes(),
                                          digest_size=16).digest()

    def similarity(self, other):
        """0-1: Jaccard of the distinct word pairs, or how alike two thumbnails are when neither has text."""
        if self.thumb is not None and other.thumb is not None:
            return float(max(0.0, 1.0 - np.abs(self.thumb - other.thumb).mean() / 64))
        if self.thumb is not None or other.thumb is not None:
            return 0.0
        common = np.intersect1d(self.words, other.words, assume_unique=True).size
        union = self.words.size + other.words.size - common
        return common / union if union else 1.0
