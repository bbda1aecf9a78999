"""A valid PDF of about `size` bytes made fast: one page and an embedded file whose stream is
deflate at level 0 (stored blocks), so qpdf copies it as it is instead of compressing it."""

from __future__ import annotations

import os
import zlib
from pathlib import Path


def make_big_pdf(path: Path, size: int) -> None:
    block = os.urandom(1 << 20)
    comp = zlib.compressobj(0)
    offsets: list[int] = []
    with open(path, "wb") as f:
        f.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")

        def obj(n: int, body: bytes) -> None:
            offsets.append(f.tell())
            f.write(b"%d 0 obj\n" % n + body + b"\nendobj\n")

        obj(1, b"<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names [(big.bin) 5 0 R] >> >> >>")
        obj(2, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>")
        obj(4, b"<< /Length 8 >>\nstream\n0 0 m S\n\nendstream")
        obj(5, b"<< /Type /Filespec /F (big.bin) /EF << /F 6 0 R >> >>")
        offsets.append(f.tell())
        f.write(b"6 0 obj\n<< /Type /EmbeddedFile /Filter /FlateDecode /Length 7 0 R >>\nstream\n")
        start, left = f.tell(), size
        while left > 0:
            n = min(left, len(block))
            f.write(comp.compress(block[:n]))
            left -= n
        f.write(comp.flush())
        length = f.tell() - start
        f.write(b"\nendstream\nendobj\n")
        offsets.append(f.tell())
        f.write(b"7 0 obj\n%d\nendobj\n" % length)
        xref = f.tell()
        f.write(b"xref\n0 8\n0000000000 65535 f \n")
        for o in offsets:
            f.write(b"%010d 00000 n \n" % o)
        f.write(b"trailer\n<< /Size 8 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref)
