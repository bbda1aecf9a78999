# Small readers over MuPDF's own objects (PyMuPDF's `mupdf` bindings): the raw bytes of a string,
# the name of a key, a type test. PyMuPDF's xref calls give a string's decoded text only, and
# MuPDF's C strings stop at the first zero byte, which UTF-16 text is full of.
from pymupdf import mupdf


def pdf_document(doc):
    return mupdf.pdf_specifics(doc.this)


def printed(obj):
    """`obj` as MuPDF writes it in a file, ASCII only: a string comes out as (…) or <hex>."""
    buf = mupdf.FzBuffer(64)
    out = mupdf.FzOutput(buf)
    mupdf.pdf_print_obj(out, obj, 1, 1)
    out.fz_close_output()
    return buf.fz_buffer_extract()


ESCAPES = {ord("n"): 10, ord("r"): 13, ord("t"): 9, ord("b"): 8, ord("f"): 12}


def string_bytes(obj):
    """The bytes of a string object, whatever they are."""
    token = printed(obj)
    if token[:1] == b"<":
        digits = bytes(c for c in token[1:-1] if c not in b" \t\r\n")
        return bytes.fromhex((digits + b"0" * (len(digits) % 2)).decode("ascii"))
    return unescape_literal(token[1:-1])


def unescape_literal(body):
    out, i = bytearray(), 0
    while i < len(body):
        c = body[i]
        if c != 0x5C:  # backslash
            out.append(c)
            i += 1
            continue
        i += 1
        if i >= len(body):
            break
        c = body[i]
        if 0x30 <= c <= 0x37:
            digits = body[i:i + 3]
            n = next((k for k, d in enumerate(digits) if not 0x30 <= d <= 0x37), len(digits))
            out.append(int(digits[:n], 8) & 0xFF)
            i += n
        elif c in (0x0A, 0x0D):
            # A line continuation: the backslash and the end of line are not part of the string.
            i += 2 if body[i:i + 2] == b"\r\n" else 1
        else:
            out.append(ESCAPES.get(c, c))
            i += 1
    return bytes(out)


def name_of(obj):
    return mupdf.pdf_to_name(obj) if mupdf.pdf_is_name(obj) else None


def dict_name(obj, key):
    return name_of(mupdf.pdf_dict_gets(obj, key))


def dict_items(obj):
    return [(mupdf.pdf_to_name(mupdf.pdf_dict_get_key(obj, i)), mupdf.pdf_dict_get_val(obj, i))
            for i in range(mupdf.pdf_dict_len(obj))]


def is_null(obj):
    return obj.m_internal is None or mupdf.pdf_is_null(obj)


def ref_number(obj):
    return mupdf.pdf_to_num(obj) if mupdf.pdf_is_indirect(obj) else 0


def remove_from_array(array, num):
    """Drops every reference to object `num` from `array`; True when one was there."""
    removed = False
    for i in reversed(range(mupdf.pdf_array_len(array))):
        if ref_number(mupdf.pdf_array_get(array, i)) == num:
            mupdf.pdf_array_delete(array, i)
            removed = True
    return removed


def indirect_annotations(doc):
    """Makes every annotation written directly in a page's /Annots an object of its own: PyMuPDF
    finds annotations by object number, and fails on a page whose /Annots holds a dictionary."""
    pdf = pdf_document(doc)
    for number in range(doc.page_count):
        annots = mupdf.pdf_dict_gets(mupdf.pdf_lookup_page_obj(pdf, number), "Annots")
        if not mupdf.pdf_is_array(annots):
            continue
        for i in range(mupdf.pdf_array_len(annots)):
            item = mupdf.pdf_array_get(annots, i)
            if mupdf.pdf_is_dict(item) and not mupdf.pdf_is_indirect(item):
                mupdf.pdf_array_put(annots, i, mupdf.pdf_add_object(pdf, item))
