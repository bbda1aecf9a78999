# "Scans" a rendered page: reads a greyscale PGM (pdftoppm -gray at 200 dpi), adds scanner noise
# (grey speckles and a faint uneven background) and writes it as a PNG that declares 200 dpi, so
# images-to-pdf gives the page its real size. Seeded; standard library only.
# Usage: scan.py IN.pgm OUT.png SEED
import random
import struct
import sys
import zlib

DPI = 200
# Share of pixels turned into speckles, and how far the background drifts from white.
SPECKLE = 0.004
DRIFT = 18


def read_pgm(path):
    data = open(path, "rb").read()
    fields, at = [], 0
    while len(fields) < 4:
        while data[at:at + 1].isspace():
            at += 1
        end = at
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[at:end])
        at = end
    width, height = int(fields[1]), int(fields[2])
    return width, height, bytearray(data[at + 1:at + 1 + width * height])


def noisy(width, height, pixels, rng):
    for _ in range(int(width * height * SPECKLE)):
        pixels[rng.randrange(len(pixels))] = rng.choice((40, 90, 160))
    # A darker band per row group, as an unevenly lit flatbed gives.
    shade = bytes(range(256))
    for top in range(0, height, 64):
        drift = rng.randint(0, DRIFT)
        table = bytes(max(0, v - drift) if v > 200 else v for v in shade)
        row = slice(top * width, min(height, top + 64) * width)
        pixels[row] = pixels[row].translate(table)
    return pixels


def write_png(path, width, height, pixels):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    raw = b"".join(b"\x00" + bytes(pixels[y * width:(y + 1) * width]) for y in range(height))
    per_metre = round(DPI / 0.0254)
    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n")
        out.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)))
        out.write(chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1)))
        out.write(chunk(b"IDAT", zlib.compress(raw, 6)))
        out.write(chunk(b"IEND", b""))


if __name__ == "__main__":
    w, h, px = read_pgm(sys.argv[1])
    write_png(sys.argv[2], w, h, noisy(w, h, px, random.Random(int(sys.argv[3]))))
