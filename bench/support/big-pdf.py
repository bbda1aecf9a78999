"""Writes a PDF of about TARGET_MIB MiB for the big-merge rows: one page per 2 MB noise JPEG (which no
codec shrinks), each image made distinct by a JPEG comment segment, so no writer can share them.
Run with the PyMuPDF venv: big-pdf.py OUT TARGET_MIB."""

import os
import struct
import sys

import pymupdf

out, target_mib = sys.argv[1], int(sys.argv[2])
bases = []
for _ in range(8):
    pix = pymupdf.Pixmap(pymupdf.csRGB, 1000, 1000, os.urandom(3_000_000), 0)
    bases.append(pix.tobytes("jpg", jpg_quality=95))
doc = pymupdf.open()
written, n = 0, 0
while written < target_mib * 1024 * 1024:
    base = bases[n % len(bases)]
    comment = f"quire bench page {n}".encode()
    image = base[:2] + b"\xff\xfe" + struct.pack(">H", len(comment) + 2) + comment + base[2:]
    page = doc.new_page(width=595, height=842)
    page.insert_image(page.rect, stream=image)
    written += len(image)
    n += 1
doc.save(out)
print(n)
