# The streams a term can be read from besides page text: XMP metadata, XFA form data and rich text
# (XML), JavaScript, attached files, and the marked-content properties of content streams. Images, fonts
# and colour profiles are binary and not searched.
from pymupdf import mupdf

from content_strings import scrub_content
from pdf_objects import dict_name
from terms import readings

XMP_PLACES = {"document_xmp", "page_xmp", "other_xmp"}


def kind_of(obj, place, key):
    if dict_name(obj, "Type") == "Metadata" or dict_name(obj, "Subtype") == "XML":
        return "xml", place if place in XMP_PLACES else "other_xmp"
    if place == "xfa":
        return "xml", "form_fields"
    if key in ("RC", "RV"):
        # Rich text of an annotation or a field (XHTML), when given as a stream.
        return "xml", place
    if key == "JS" or place == "javascript" and dict_name(obj, "Subtype") != "Form":
        return "script", "javascript"
    if (
        dict_name(obj, "Type") == "EmbeddedFile"
        or place == "embedded_files" and dict_name(obj, "Subtype") != "Form"
    ):
        return "file", "embedded_files"
    if dict_name(obj, "Subtype") == "Form" or place == "page_content":
        return "content", "marked_content"
    return None, None


def text_and_encoder(data):
    """The text of a text stream and how to write it back the same way (mark and encoding)."""
    for mark, codec in ((b"\xef\xbb\xbf", "utf-8"), (b"\xfe\xff", "utf-16-be"), (b"\xff\xfe", "utf-16-le")):
        if data.startswith(mark):
            return data[len(mark):].decode(codec, "replace"), lambda t, m=mark, c=codec: m + t.encode(c)
    try:
        return data.decode("utf-8"), lambda t: t.encode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1"), lambda t: t.encode("latin-1", "replace")


def clean_stream(walk, num, obj, place, key):
    """Cleans stream `num` by its kind; returns (place, 1) when it changed (or would), else None."""
    kind, counted = kind_of(obj, place, key)
    if kind is None:
        return None
    try:
        data = walk.doc.xref_stream(num)
    except Exception:
        return None  # a stream MuPDF cannot decode: nothing a reader could read either
    if data is None:
        return None
    if kind == "content":
        clean, changed = scrub_content(data, walk.terms)
        if changed and walk.clean:
            walk.doc.update_stream(num, clean)
        return (counted, changed) if changed else None
    if kind == "file":
        if not any(walk.terms.search(text) for text in readings(data)):
            return None
        if walk.clean:
            # An attached file is not edited (its format is unknown): it is emptied, its entry kept.
            walk.doc.update_stream(num, b"")
            mupdf.pdf_dict_dels(obj, "Params")
        return counted, 1
    text, encode = text_and_encoder(data)
    xml = kind == "xml"
    clean = walk.terms.scrub(text, xml=xml)
    if clean == text and not any(walk.terms.search(t) for t in readings(data)):
        return None
    if walk.clean:
        if clean == text:
            walk.doc.update_stream(num, b"")  # it matched only when read another way: dropped
        else:
            # XMP stays uncompressed: PDF/A readers expect to find it as plain text.
            walk.doc.update_stream(num, encode(clean), compress=0 if kind == "xml" else 1)
    return counted, 1
