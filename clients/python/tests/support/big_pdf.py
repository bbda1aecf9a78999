"""A valid PDF of about `size` bytes made fast: one page and 1 MiB embedded files whose streams are
deflate at level 0 (stored blocks), so qpdf copies them as they are instead of compressing them, one
small stream at a time (an engine's memory limit would stop one 1 GiB stream)."""

from __future__ import annotations

import os
import zlib
from pathlib import Path

PIECE = 1 << 20


def make_big_pdf(path: Path, size: int) -> None:
    pieces = max(1, size // PIECE)
    block = os.urandom(PIECE)
    offsets: list[int] = []
    with open(path, "wb") as f:
        f.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")

        def obj(n: int, body: bytes) -> None:
            offsets.append(f.tell())
            f.write(b"%d 0 obj\n" % n + body + b"\nendobj\n")

        names = b" ".join(b"(f%06d) %d 0 R" % (i, 5 + 2 * i) for i in range(pieces))
        obj(1, b"<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names [" + names + b"] >> >> >>")
        obj(2, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>")
        obj(4, b"<< /Length 8 >>\nstream\n0 0 m S\n\nendstream")
        for i in range(pieces):
            # Each piece differs (its index in front), so no two streams are alike.
            data = zlib.compress(i.to_bytes(8, "big") + block[8:], 0)
            obj(5 + 2 * i, b"<< /Type /Filespec /F (f%06d) /EF << /F %d 0 R >> >>" % (i, 6 + 2 * i))
            obj(6 + 2 * i, b"<< /Type /EmbeddedFile /Filter /FlateDecode /Length %d >>\nstream\n" % len(data)
                + data + b"\nendstream")
        xref = f.tell()
        f.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1))
        for o in offsets:
            f.write(b"%010d 00000 n \n" % o)
        f.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(offsets) + 1, xref))
