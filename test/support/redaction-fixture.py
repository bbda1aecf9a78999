# Writes the redaction fixture of test/e2e/redact-complete.test.ts: a one-page PDF with the term
# planted in every place a text can live in a PDF (listed in PLACES, each made below), unrelated
# text in the same kinds of places, and three objects for areas to cover (a form field, a stamp, an
# image). Prints {"places": [{removed, place}], "areas": [...]} on stdout (`removed`: the key of the
# result facts that place is counted under); areas are PDF points from the bottom
# left, as the redact tool takes them. Run with the pymupdf venv: python redaction-fixture.py OUT TERM
import json
import os
import sys

import pymupdf

OUT, TERM = sys.argv[1], sys.argv[2]
PLACES = []
FONT = []
XMP = ('<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">'
       '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" '
       'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:q="http://example.com/q/">'
       '<dc:title><rdf:Alt><rdf:li xml:lang="x-default">{title}</rdf:li></rdf:Alt></dc:title>'
       f'<q:case>{TERM}</q:case></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>')


def planted(counted_as, name):
    """Records a place: `counted_as` is the key of the `removed` facts it is reported under."""
    PLACES.append({"removed": counted_as, "place": name})


def pdf_str(text):
    return pymupdf.get_pdf_str(text)


def utf16be_hex(text):
    return "<FEFF" + text.encode("utf-16-be").hex().upper() + ">"


def utf16le_hex(text):
    return "<FFFE" + text.encode("utf-16-le").hex().upper() + ">"


def new_object(doc, source):
    xref = doc.get_new_xref()
    doc.update_object(xref, source)
    return xref


def new_stream(doc, data, source="<<>>"):
    xref = new_object(doc, source)
    doc.update_stream(xref, data if isinstance(data, bytes) else data.encode("latin-1"), new=True)
    return xref


def append_content(doc, page, ops):
    """A content stream of our own after the page's, so the operators are exactly these."""
    xref = new_stream(doc, ops)
    contents = doc.xref_get_key(page.xref, "Contents")
    refs = contents[1].strip("[]") if contents[0] == "array" else contents[1]
    doc.xref_set_key(page.xref, "Contents", f"[{refs} {xref} 0 R]")


def page_text(doc, page):
    page.insert_text((72, 90), "KEEPALPHA report", fontsize=28)
    page.insert_text((72, 140), f"Account {TERM} closed", fontsize=28)
    planted("page_text", "page text")
    page.insert_text((72, 170), f"hidden {TERM}", fontsize=10, render_mode=3)
    planted("page_text", "invisible page text (render mode 3)")
    font = new_object(
        doc, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    )
    FONT.append(f"{font} 0 R")
    # One stream: marked content with /Alt and /ActualText around unrelated text, text beyond the
    # MediaBox's right edge, and text in the strip the CropBox (set below) cuts off at the top.
    append_content(
        doc,
        page,
        "/Span << /Alt " + pdf_str(f"alt {TERM}") + " /ActualText " + utf16be_hex(f"actual {TERM}")
        + " >> BDC BT /F9 20 Tf 72 560 Td (KEEPBETA marked) Tj ET EMC\n"
        + f"BT /F9 12 Tf 700 400 Td (beyond {TERM}) Tj ET\n"
        + f"BT /F9 12 Tf 72 775 Td (cropped {TERM}) Tj ET\n",
    )
    planted("marked_content", "marked-content /Alt in a content stream")
    planted("marked_content", "marked-content /ActualText (UTF-16BE) in a content stream")
    planted("outside_box", "text outside the MediaBox")
    planted("outside_box", "text inside the MediaBox, outside the CropBox")
    form = new_stream(
        doc,
        f"BT /F9 12 Tf 0 0 Td (xobject {TERM}) Tj ET",
        "<< /Type /XObject /Subtype /Form /BBox [0 0 300 30] "
        f"/Resources << /Font << /F9 {page_font_ref(doc, page)} >> >> >>",
    )
    resources = doc.xref_get_key(page.xref, "Resources")
    res_xref = int(resources[1].split()[0])
    doc.xref_set_key(res_xref, "Font/F9", FONT[0])
    doc.xref_set_key(res_xref, "XObject/Fx1", f"{form} 0 R")
    append_content(doc, page, "q 1 0 0 1 72 520 cm /Fx1 Do Q\n")
    planted("page_text", "text in a form XObject")
    unused = new_object(doc, f"<< /Type /Font /Subtype /Type1 /BaseFont /{TERM}+Courier >>")
    doc.xref_set_key(res_xref, "Font/F8", f"{unused} 0 R")
    planted("other", "a font's name (/BaseFont)")


def page_font_ref(doc, page):
    return FONT[0]


def widgets(doc, page):
    field = pymupdf.Widget()
    field.field_type = pymupdf.PDF_WIDGET_TYPE_TEXT
    field.field_name = "secret_field"
    field.field_value = f"{TERM}"
    field.field_label = f"Tooltip {TERM}"
    field.text_fontsize = 24
    field.rect = pymupdf.Rect(72, 190, 400, 225)
    annot = page.add_widget(field)
    doc.xref_set_key(annot.xref, "DV", pdf_str(f"default {TERM}"))
    doc.xref_set_key(annot.xref, "TM", pdf_str(f"export {TERM}"))
    planted("form_fields", "text field appearance")
    planted("form_fields", "text field /V")
    planted("form_fields", "text field /DV")
    planted("form_fields", "text field /TU")
    planted("form_fields", "text field /TM")
    made = {}
    for name, value, rect in (
        ("keep_field", "KEEPEPSILON", (72, 235, 400, 265)),
        ("area_field", "AREAFIELD", (72, 275, 400, 305)),
        ("area_field_2", "AREAFIELD", (420, 275, 560, 305)),
    ):
        other = pymupdf.Widget()
        other.field_type = pymupdf.PDF_WIDGET_TYPE_TEXT
        other.field_name = name
        other.field_value = value
        other.text_fontsize = 18
        other.rect = pymupdf.Rect(rect)
        made[name] = page.add_widget(other).xref
    # area_field becomes one field with two widgets (an area covers only the first): /T and /V
    # move to a parent field whose /Kids are the widgets.
    kids = [made["area_field"], made["area_field_2"]]
    parent = new_object(
        doc, f"<< /FT /Tx /T (area_field) /V (AREAFIELD) /Kids [{kids[0]} 0 R {kids[1]} 0 R] >>"
    )
    for kid in kids:
        for key in ("T", "FT", "V"):
            doc.xref_set_key(kid, key, "null")
        doc.xref_set_key(kid, "Parent", f"{parent} 0 R")
    form = doc.xref_get_key(doc.pdf_catalog(), "AcroForm")
    form_xref = int(form[1].split()[0]) if form[0] == "xref" else None
    fields = f"[{annot.xref} 0 R {made['keep_field']} 0 R {parent} 0 R]"
    if form_xref:
        doc.xref_set_key(form_xref, "Fields", fields)
    else:
        doc.xref_set_key(doc.pdf_catalog(), "AcroForm/Fields", fields)
    xfa = new_stream(doc, f"<xfa:datasets xmlns:xfa=\"http://www.xfa.org/schema/xfa-data/1.0/\"><xfa:data>"
                          f"<form><secret>{TERM}</secret></form></xfa:data></xfa:datasets>")
    doc.xref_set_key(
        form_xref or doc.pdf_catalog(), "XFA" if form_xref else "AcroForm/XFA", f"[(datasets) {xfa} 0 R]"
    )
    planted("form_fields", "XFA datasets")


def stamp(doc, page, rect, text):
    """A Stamp whose appearance stream shows `text` and that has no /Contents."""
    annot = page.add_stamp_annot(pymupdf.Rect(rect), stamp=0)
    ap = int(doc.xref_get_key(annot.xref, "AP/N")[1].split()[0])
    font = page_font_ref(doc, page)
    width, height = rect[2] - rect[0], rect[3] - rect[1]
    doc.xref_set_key(ap, "BBox", f"[0 0 {width} {height}]")
    doc.xref_set_key(ap, "Matrix", "[1 0 0 1 0 0]")
    doc.xref_set_key(ap, "Resources", f"<< /Font << /F9 {font} >> >>")
    doc.update_stream(ap, f"BT /F9 20 Tf 4 8 Td ({text}) Tj ET".encode("latin-1"))
    doc.xref_set_key(annot.xref, "Contents", "null")
    return annot


def annotations(doc, page):
    stamp(doc, page, (72, 320, 330, 355), TERM)
    planted("annotations", "Stamp appearance without /Contents")
    stamp(doc, page, (72, 365, 330, 400), "AREASTAMP")
    note = page.add_text_annot((450, 80), "placeholder")
    doc.xref_set_key(note.xref, "Contents", utf16be_hex(f"note {TERM}"))
    doc.xref_set_key(note.xref, "T", pdf_str(f"author {TERM}"))
    doc.xref_set_key(note.xref, "Subj", pdf_str(f"subject {TERM}"))
    doc.xref_set_key(note.xref, "RC", pdf_str(f"<body><p>rich {TERM}</p></body>"))
    planted("annotations", "annotation /Contents (UTF-16BE)")
    planted("annotations", "annotation /T")
    planted("annotations", "annotation /Subj")
    planted("annotations", "annotation /RC")
    page.insert_link({"kind": pymupdf.LINK_URI, "from": pymupdf.Rect(450, 120, 550, 140),
                      "uri": f"https://example.com/?q={TERM}"})
    planted("actions", "link annotation /URI")
    doc.xref_set_key(
        page.xref, "AA", "<< /O << /S /JavaScript /JS " + pdf_str(f"var p = '{TERM}';") + " >> >>"
    )
    planted("javascript", "page /AA JavaScript")


def image(doc, page):
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
    pix.set_rect(pix.irect, (220, 30, 30))
    xref = page.insert_image(pymupdf.Rect(450, 320, 530, 400), pixmap=pix)
    page.insert_link({"kind": pymupdf.LINK_URI, "from": pymupdf.Rect(460, 330, 520, 390),
                      "uri": "https://example.com/AREALINK"})
    xmp = new_stream(
        doc, XMP.format(title=f"image {TERM}").encode("utf-8"), "<< /Type /Metadata /Subtype /XML >>"
    )
    doc.xref_set_key(xref, "Metadata", f"{xmp} 0 R")
    planted("other_xmp", "an image's XMP")


def metadata(doc, page):
    doc.set_metadata({"title": f"{TERM} title", "author": f"{TERM} author", "subject": f"about {TERM}",
                      "keywords": f"{TERM}, other", "creator": "KEEPGAMMA creator"})
    planted("document_info", "/Info /Title")
    planted("document_info", "/Info /Author")
    planted("document_info", "/Info /Subject")
    planted("document_info", "/Info /Keywords")
    info = int(doc.xref_get_key(-1, "Info")[1].split()[0])
    doc.xref_set_key(info, "Project", pdf_str(f"project {TERM}"))
    doc.xref_set_key(info, "Owner", utf16be_hex(f"owner {TERM}"))
    doc.xref_set_key(info, "Note", utf16le_hex(f"note {TERM}"))
    planted("document_info", "/Info custom key")
    planted("document_info", "/Info custom key (UTF-16BE)")
    planted("document_info", "/Info custom key (UTF-16LE)")
    doc.xref_set_key(info, f"Case{TERM}", pdf_str("KEEPZETA value"))
    planted("document_info", "/Info custom key's name")
    doc.xref_set_key(info, "Bare", "<" + f"bare {TERM}".encode("utf-16-le").hex().upper() + ">")
    planted("document_info", "/Info custom key (UTF-16LE without a byte order mark)")
    doc.xref_set_key(info, "Utf8", "<EFBBBF" + f"utf8 {TERM} \u00e9".encode().hex().upper() + ">")
    planted("document_info", "/Info custom key (UTF-8 with its mark)")
    xmp = XMP.format(title=f"{TERM} xmp")
    doc.set_xml_metadata(xmp)
    planted("document_xmp", "document XMP")
    page_xmp = new_stream(doc, XMP.format(title=f"{TERM} page xmp").encode("utf-8"),
                          "<< /Type /Metadata /Subtype /XML >>")
    doc.xref_set_key(page.xref, "Metadata", f"{page_xmp} 0 R")
    planted("page_xmp", "page-level XMP")


def navigation(doc, page):
    doc.set_toc([[1, f"Chapter {TERM}", 1], [1, "KEEPDELTA chapter", 1], [1, "Links", 1],
                 [1, "Named", 1]])
    planted("outlines", "outline title")
    outlines = doc.get_outline_xrefs()
    doc.xref_set_key(outlines[2], "A", "<< /S /URI /URI " + pdf_str(f"https://example.com/{TERM}") + " >>")
    doc.xref_set_key(outlines[2], "Dest", "null")
    planted("actions", "outline /URI action")
    doc.xref_set_key(outlines[3], "A", "<< /S /GoTo /D " + pdf_str(f"{TERM}-dest") + " >>")
    doc.xref_set_key(outlines[3], "Dest", "null")
    planted("actions", "outline GoTo to a named destination")
    js = new_stream(doc, f"app.alert('{TERM}');")
    files = embedded(doc)
    names = new_object(doc, f"<< /Dests << /Names [{pdf_str(TERM + '-dest')} [{page.xref} 0 R /Fit]] >> "
                            f"/JavaScript << /Names [{pdf_str(TERM + '-script')} "
                            f"<< /S /JavaScript /JS {js} 0 R >>] >> "
                            f"/EmbeddedFiles {files} >>")
    cat = doc.pdf_catalog()
    doc.xref_set_key(cat, "Names", f"{names} 0 R")
    planted("named_destinations", "named destination (name tree key)")
    planted("javascript", "document JavaScript name")
    planted("javascript", "document JavaScript (stream)")
    doc.xref_set_key(cat, "Dests", f"<< /{TERM}old [{page.xref} 0 R /Fit] >>")
    planted("named_destinations", "named destination (/Dests dictionary key)")
    doc.xref_set_key(cat, "OpenAction", "<< /S /JavaScript /JS " + pdf_str(f"var o = '{TERM}';") + " >>")
    planted("javascript", "/OpenAction JavaScript")
    doc.xref_set_key(
        cat, "AA", "<< /WC << /S /JavaScript /JS " + utf16be_hex(f"var c = '{TERM}';") + " >> >>"
    )
    planted("javascript", "document /AA JavaScript (UTF-16BE)")
    doc.xref_set_key(cat, "PageLabels", "<< /Nums [0 << /S /D /P " + pdf_str(f"{TERM}-") + " >>] >>")
    planted("page_labels", "/PageLabels prefix")


def embedded(doc):
    """The /EmbeddedFiles name tree (built here rather than with embfile_add, which owns /Names)."""
    data = new_stream(doc, f"attached {TERM}\n", "<< /Type /EmbeddedFile >>")
    spec = new_object(doc, f"<< /Type /Filespec /F {pdf_str(TERM + '.txt')} /UF {utf16be_hex(TERM + '.txt')} "
                           f"/Desc {pdf_str('desc ' + TERM)} /EF << /F {data} 0 R >> >>")
    planted("embedded_files", "embedded file content")
    planted("embedded_files", "embedded file /Desc")
    planted("embedded_files", "embedded file /F and /UF")
    planted("embedded_files", "embedded file name tree key")
    return f"<< /Names [{pdf_str(TERM + '.txt')} {spec} 0 R] >>"


def structure(doc, page):
    cat = doc.pdf_catalog()
    root = new_object(doc, "<< /Type /StructTreeRoot >>")
    elem = new_object(doc, f"<< /Type /StructElem /S /Figure /P {root} 0 R /Pg {page.xref} 0 R /K 0 "
                           f"/Alt {pdf_str('figure ' + TERM)} /ActualText {utf16be_hex('actual ' + TERM)} "
                           f"/T {pdf_str('title ' + TERM)} /E {pdf_str(TERM)} >>")
    doc.xref_set_key(root, "K", f"[{elem} 0 R]")
    doc.xref_set_key(cat, "StructTreeRoot", f"{root} 0 R")
    doc.xref_set_key(cat, "MarkInfo", "<< /Marked true >>")
    planted("structure", "structure element /Alt")
    planted("structure", "structure element /ActualText (UTF-16BE)")
    planted("structure", "structure element /T")
    planted("structure", "structure element /E")


def main():
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page_text(doc, page)
    widgets(doc, page)
    annotations(doc, page)
    image(doc, page)
    doc.add_ocg(f"layer {TERM}", on=True)
    planted("other", "optional content group (layer) name")
    hidden = doc.add_ocg("KEEPETA layer", on=False)
    page.insert_text((72, 700), f"layered {TERM}", fontsize=14, oc=hidden)
    planted("page_text", "text in a layer that is off")
    metadata(doc, page)
    navigation(doc, page)
    structure(doc, page)
    # The top 30 points are outside the CropBox: text there is in the file but never shown.
    page.set_cropbox(pymupdf.Rect(0, 30, 612, 792))
    doc.save(OUT, garbage=1, deflate=True)
    # The file identifier: two binary strings any writer may fill, here with the term in the first.
    with pymupdf.open(OUT) as again:
        again.xref_set_key(-1, "ID", f"[<{TERM.encode('latin-1').hex()}> <{TERM.encode('latin-1').hex()}>]")
        again.save(OUT + ".tmp", garbage=1, deflate=True)
    os.replace(OUT + ".tmp", OUT)
    planted("other", "the trailer's file identifier /ID")
    areas = []
    out = pymupdf.open(OUT)
    for w in out[0].widgets():
        if w.field_name == "area_field" and w.rect.x0 < 100:
            areas.append(rect_of(out, w.xref))
    for a in out[0].annots():
        if a.type[0] != pymupdf.PDF_ANNOT_STAMP:
            continue
        appearance = int(out.xref_get_key(a.xref, "AP/N")[1].split()[0])
        if "AREASTAMP" in out.xref_stream(appearance).decode("latin-1"):
            areas.append(rect_of(out, a.xref))
    areas.append([450, 392, 530, 472])
    print(json.dumps({"places": PLACES, "areas": [{"page": 1, "rect": r} for r in areas]}))


def rect_of(doc, xref):
    return [float(v) for v in doc.xref_get_key(xref, "Rect")[1].strip("[]").split()]


if __name__ == "__main__":
    main()
