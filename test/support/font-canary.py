# Writes a canary TrueType font for the engine-isolation tests: Liberation Sans renamed to the
# family given (e.g. "Arial", the name of a common font) with the PostScript name given, and with
# its digits' glyphs swapped (0<->9, 1<->7), so "1,000.00" drawn with it reads "7,999.99". Embedding
# is allowed (OS/2 fsType 0), as a document that wants its font used would set it.
# argv: <out.ttf> <family> <postscript-name>. Needs fontTools (Debian's python3-fonttools).
import sys

from fontTools.ttLib import TTFont

SOURCE = '/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf'
SWAPS = {'0': '9', '9': '0', '1': '7', '7': '1'}

out, family, ps_name = sys.argv[1:4]
font = TTFont(SOURCE)
for table in font['cmap'].tables:
    if not table.isUnicode():
        continue
    original = dict(table.cmap)
    for digit, shown in SWAPS.items():
        if ord(digit) in original and ord(shown) in original:
            table.cmap[ord(digit)] = original[ord(shown)]
names = font['name']
for record in list(names.names):
    if record.nameID in (1, 4, 16):
        record.string = family
    elif record.nameID == 6:
        record.string = ps_name
    elif record.nameID == 3:
        record.string = f'{ps_name};canary'
font['OS/2'].fsType = 0
font.save(out)
