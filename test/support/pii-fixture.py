# Writes the personal-data fixture of test/e2e/pii.test.ts: a four-page PDF with planted values of
# every kind detect-pii finds and near misses that look like them but fail their check (a card
# failing Luhn, an IBAN with a wrong checksum, dates that look like phone numbers…), laid out as
# running text (page 1), a table with rules (page 2), two columns (page 3) and a scanned page, an
# image without a text layer (page 4); plus copies in the metadata, an annotation and a form field.
# Prints {"planted": [{kind, value, page, rect?}], "near_misses": [...], "hidden": [...]} on stdout
# (rects in PDF points from the bottom left, as detect-pii gives them). Run with the pymupdf venv:
# python pii-fixture.py OUT
import json
import sys

import pymupdf

OUT = sys.argv[1]

TEXT = [  # page 1: running text
    ("email", "jane.doe@example.com"),
    ("phone", "(202) 555-0143"),
    ("iban", "DE89 3704 0044 0532 0130 00"),
    ("card", "4111 1111 1111 1111"),
    ("ip", "192.168.10.42"),
    ("national_id", "536-22-8726"),
    ("national_id", "RCCMNL83S18D969H"),
]
TABLE = [  # page 2: one row per person, cells drawn separately
    ("email", "m.rossi+hr@mail.example.org"),
    ("phone", "+49 30 901820"),
    ("iban", "GB82WEST12345698765432"),
    ("card", "5500-0000-0000-0004"),
    ("national_id", "36574261809"),
    ("national_id", "2 95 10 99 126 111 93"),
    ("national_id", "54362315K"),
]
COLUMNS = [  # page 3: two columns
    ("ip", "2001:db8::8a2e:370:7334"),
    ("card", "378282246310005"),
    ("iban", "FR14 2004 1010 0505 0001 3M02 606"),
    ("national_id", "111222333"),
    ("national_id", "X2482300W"),
    ("national_id", "44051401359"),
    ("national_id", "880320-0016"),
    ("national_id", "131052-308T"),
    ("phone", "+44 20 7946 0958"),
]
SCANNED = [  # page 4: pixels only, found after OCR
    ("email", "alex.smith@example.net"),
    ("phone", "+1 202 555 0178"),
    ("card", "4012 8888 8888 1881"),
]
HIDDEN = [  # not on any page: metadata, an annotation, a form field (redact must remove them too)
    ("email", "owner.secret@example.com"),
    ("phone", "+33 1 42 68 53 00"),
    ("iban", "NL91 ABNA 0417 1643 00"),
]
NEAR_MISSES = [
    "4111 1111 1111 1112",  # card failing Luhn
    "5500 0000 0000 0005",
    "DE88 3704 0044 0532 0130 00",  # IBAN with a wrong checksum
    "GB83WEST12345698765432",
    "2024-03-15",  # dates and times that look like phone numbers
    "15.03.2024",
    "2023/11/04",
    "12:30:45",
    "999.12.1.1",  # not an IPv4 address
    "1.2.3.4.5",
    "000-12-3456",  # SSN area 000
    "111222334",  # BSN failing the 11-test
    "36574261808",  # IdNr with a wrong check digit
    "54362315A",  # DNI with the wrong letter
    "44051401358",  # PESEL with a wrong check digit
    "978-3-16-148410-0",  # an ISBN
    "user@localhost",  # no domain
    "Order 2023-0042",
    "2023-000123",  # an invoice number that libphonenumber reads as a valid US number
    "Invoice 100045",
    "v10.4.2",
]

doc = pymupdf.open()
planted = []


def line(page, y, text, x=72, size=10):
    page.insert_text((x, y), text, fontname="helv", fontsize=size)


def plant(page, kind, value):
    planted.append({"kind": kind, "value": value, "page": page.number + 1})


# Page 1: prose.
page = doc.new_page()
y = 90
for kind, value in TEXT:
    line(page, y, f"Please note the {kind.replace('_', ' ')} {value} for the file of our client.")
    plant(page, kind, value)
    y += 18
for miss in NEAR_MISSES[:10]:
    line(page, y, f"Reference {miss} is not personal data.")
    y += 18

# Page 2: a table, every cell its own text with rules between.
page = doc.new_page()
cols = [72, 200, 380]
for row, (kind, value) in enumerate(TABLE + [("none", m) for m in NEAR_MISSES[10:]]):
    top = 80 + row * 22
    for x in cols:
        cell = pymupdf.Rect(x - 4, top, x + 170 if x < 380 else 560, top + 22)
        page.draw_rect(cell, color=(0, 0, 0), width=0.5)
    line(page, top + 15, f"Row {row + 1}", x=cols[0])
    line(page, top + 15, kind.replace("_", " ") if kind != "none" else "reference", x=cols[1])
    line(page, top + 15, value, x=cols[2])
    if kind != "none":
        plant(page, kind, value)

# Page 3: two columns of wrapped text.
page = doc.new_page()
left = " ".join(f"Entry {i}: {kind.replace('_', ' ')} {value}; checked by the clerk." for i, (kind, value) in
                enumerate(COLUMNS[:5]))
right = " ".join(f"Entry {i}: {kind.replace('_', ' ')} {value}; checked by the clerk." for i, (kind, value) in
                 enumerate(COLUMNS[5:]))
left += " Build v10.4.2 of 2024-03-15."
right += " Call at 12:30:45 on 15.03.2024."
page.insert_textbox(pymupdf.Rect(72, 72, 290, 760), left, fontname="helv", fontsize=10)
page.insert_textbox(pymupdf.Rect(310, 72, 540, 760), right, fontname="helv", fontsize=10)
for kind, value in COLUMNS:
    plant(page, kind, value)

# Page 4: a scan: a page rendered at 300 dpi, put in as an image with no text.
scan = pymupdf.open()
source = scan.new_page()
y = 100
for kind, value in SCANNED:
    line(source, y, f"{kind.capitalize()}: {value}", size=14)
    y += 30
line(source, y, f"Not a card: {NEAR_MISSES[0]}", size=14)
pixmap = source.get_pixmap(dpi=300)
page = doc.new_page()
page.insert_image(page.rect, pixmap=pixmap)
for kind, value in SCANNED:
    plant(page, kind, value)

# Where each planted value is on its page (text pages), PDF points from the bottom left.
for entry in planted:
    page = doc[entry["page"] - 1]
    hits = page.search_for(entry["value"])
    if hits:
        r = hits[0] * ~page.transformation_matrix
        r.normalize()
        entry["rect"] = [r.x0, r.y0, r.x1, r.y1]

# Values outside the page text: metadata, an annotation, a form field.
doc.set_metadata(
    {"author": f"Owner {HIDDEN[0][1]}", "subject": f"Call {HIDDEN[1][1]}", "title": "Client file"}
)
first = doc[0]
first.add_text_annot((500, 60), f"Pay to {HIDDEN[2][1]}")
widget = pymupdf.Widget()
widget.field_name = "contact"
widget.field_type = pymupdf.PDF_WIDGET_TYPE_TEXT
widget.field_value = HIDDEN[0][1]
widget.rect = pymupdf.Rect(72, 720, 300, 740)
first.add_widget(widget)
doc.save(OUT)
print(json.dumps({"planted": planted, "near_misses": NEAR_MISSES,
                  "hidden": [{"kind": k, "value": v} for k, v in HIDDEN]}))
