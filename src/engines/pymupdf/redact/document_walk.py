# Every string and every text stream of the document, reached from the trailer the way a reader
# reaches them, cleaned of the terms and counted by the place they were found in (the `removed`
# facts; docs/tools.md lists the places). Strings are searched in every encoding a reader may
# apply (terms.readings); names only where they are free text: destination names (catalog /Dests
# keys, /D, /Dest), /Info's keys, font names.
from pymupdf import mupdf

from pdf_objects import dict_items, dict_name, is_null, name_of, pdf_document, string_bytes
from streams import clean_stream

# Entries whose strings are syntax or binary, never text a reader is shown: a field's default
# appearance (font and colour operators) and a signature's values. (The trailer's /Encrypt is not
# walked: the file is written anew, unencrypted; its /ID is looked at on its own.)
SYNTAX_KEYS = {"DA", "ByteRange", "Cert"}
# References that lead back up or sideways (to a parent, a page, a structure element): the object
# is reached from its own place instead, so it is counted there.
BACK_REFERENCES = {"Parent", "P", "Pg", "SE", "Obj", "Popup", "IRT"}
# The catalog's entries, walked in this order (the pages first: annotations and fields found on a
# page are counted as such, not as a struct element's or an outline's target).
CATALOG = {
    "Pages": "pages",
    "AcroForm": "form_fields",
    "StructTreeRoot": "structure",
    "Names": "names",
    "Dests": "named_destinations",
    "Outlines": "outlines",
    "PageLabels": "page_labels",
    "Metadata": "document_xmp",
    "OpenAction": "actions",
    "AA": "actions",
    "URI": "actions",
}
NAME_TREES = {"Dests": "named_destinations", "JavaScript": "javascript", "EmbeddedFiles": "embedded_files"}
ENTRY_PLACES = {"A": "actions", "AA": "actions", "PA": "actions", "JS": "javascript", "EF": "embedded_files",
                "FS": "embedded_files", "RF": "embedded_files", "XFA": "xfa"}


class DocumentWalk:
    """One pass over the document; `clean=False` only counts (the check after cleaning)."""

    def __init__(self, doc, terms, clean=True):
        self.doc, self.terms, self.clean = doc, terms, clean
        self.pdf = pdf_document(doc)
        self.seen = set()
        self.counts = {}

    def run(self, everything=True):
        """Walks from the trailer; with `everything`, also every object the walk did not reach."""
        trailer = mupdf.pdf_trailer(self.pdf)
        self.file_identifier(trailer)
        self.visit(mupdf.pdf_dict_gets(trailer, "Info"), "document_info")
        root = mupdf.pdf_dict_gets(trailer, "Root")
        if not mupdf.pdf_is_dict(root):
            return self.counts
        self.seen.add(mupdf.pdf_to_num(root))
        for key, place in CATALOG.items():
            self.visit(mupdf.pdf_dict_gets(root, key), place, key, root)
        for key, value in dict_items(root):
            if key not in CATALOG:
                self.visit(value, "other", key, root)
        # What the walk did not reach (through a back reference only, or not at all) is searched
        # too: the caller has dropped unused objects, so all of it is in the file.
        for num in range(1, mupdf.pdf_xref_len(self.pdf) if everything else 0):
            if num not in self.seen:
                self.visit(mupdf.pdf_new_indirect(self.pdf, num, 0), "other")
        return self.counts

    def file_identifier(self, trailer):
        """The trailer's /ID is two binary strings, free for any writer to fill: one holding a
        match is dropped, and MuPDF writes a new one when it saves."""
        ids = mupdf.pdf_dict_gets(trailer, "ID")
        if not mupdf.pdf_is_array(ids):
            return
        for i in range(mupdf.pdf_array_len(ids)):
            item = mupdf.pdf_array_get(ids, i)
            if mupdf.pdf_is_string(item) and self.terms.search_bytes(string_bytes(item)):
                self.count("other")
                if self.clean:
                    mupdf.pdf_dict_dels(trailer, "ID")
                return

    def count(self, place, n=1):
        self.counts[place] = self.counts.get(place, 0) + n

    def visit(self, obj, place, key=None, holder=None):
        """Walks `obj` and everything below it, depth first, with a stack of its own: a chain of
        thousands of bookmarks (each one's /Next) is deeper than Python's recursion allows."""
        stack = [(obj, place, key, holder)]
        while stack:
            stack.extend(reversed(self.step(*stack.pop())))

    def step(self, obj, place, key, holder):
        """Cleans one object; returns its children as (object, place, key, holder)."""
        if is_null(obj):
            return []
        num = 0
        if mupdf.pdf_is_indirect(obj):
            num = mupdf.pdf_to_num(obj)
            if key in BACK_REFERENCES or num in self.seen:
                return []
            self.seen.add(num)
            obj = mupdf.pdf_resolve_indirect(obj)
            if is_null(obj):
                return []
        if mupdf.pdf_is_string(obj):
            self.string(obj, place, key, holder, num)
        elif mupdf.pdf_is_name(obj):
            self.free_name(obj, place, key, holder)
        elif mupdf.pdf_is_array(obj):
            return [(mupdf.pdf_array_get(obj, i), place, i, obj) for i in range(mupdf.pdf_array_len(obj))]
        elif mupdf.pdf_is_dict(obj):
            return self.dictionary(obj, place, key, num)
        return []

    def dictionary(self, obj, place, key, num):
        place = self.place_of(obj, place, key)
        if num and self.doc.xref_is_stream(num):
            changed = clean_stream(self, num, obj, place, key)
            if changed:
                self.count(*changed)
        if (key == "Dests" and place == "named_destinations" and not self.is_name_tree(obj)) or (
            place == "document_info" and key is None
        ):
            self.rename_keys(obj, place)
        children = []
        for child_key, value in dict_items(obj):
            if child_key in SYNTAX_KEYS or (child_key == "Contents" and self.is_signature(obj)):
                continue
            child_place = ENTRY_PLACES.get(child_key, place)
            if place == "names" and child_key in NAME_TREES:
                child_place = NAME_TREES[child_key]
            if dict_name(obj, "Type") == "Page" and child_key in ("Metadata", "Contents"):
                child_place = "page_xmp" if child_key == "Metadata" else "page_content"
            elif child_key == "Metadata":
                child_place = "other_xmp"
            children.append((value, child_place, child_key, obj))
        return children

    @staticmethod
    def is_signature(obj):
        """A signature dictionary (/Type is optional there; /ByteRange is not): its /Contents is
        the signature's binary value."""
        return dict_name(obj, "Type") in ("Sig", "DocTimeStamp") or not is_null(
            mupdf.pdf_dict_gets(obj, "ByteRange")
        )

    @staticmethod
    def is_name_tree(obj):
        return any(not is_null(mupdf.pdf_dict_gets(obj, k)) for k in ("Names", "Kids"))

    def place_of(self, obj, place, key):
        subtype, kind = dict_name(obj, "Subtype"), dict_name(obj, "Type")
        if subtype == "Widget" or not is_null(mupdf.pdf_dict_gets(obj, "FT")):
            return "form_fields"
        if dict_name(obj, "S") == "JavaScript":
            return "javascript"
        if kind in ("Filespec", "EmbeddedFile"):
            return "embedded_files"
        if kind == "StructElem":
            return "structure"
        if kind == "Annot" or (place == "pages" and isinstance(key, int) and subtype):
            return "annotations"
        if kind == "Page":
            return "pages"
        return place

    def string(self, obj, place, key, holder, num):
        clean = self.terms.scrub_bytes(string_bytes(obj))
        if clean is None:
            return
        self.count(place)
        if self.clean:
            replacement = mupdf.pdf_new_text_string(clean)
            if num:
                mupdf.pdf_update_object(self.pdf, num, replacement)
            elif isinstance(key, int):
                mupdf.pdf_array_put(holder, key, replacement)
            else:
                mupdf.pdf_dict_puts(holder, key, replacement)

    def free_name(self, obj, place, key, holder):
        """A name that is free text, not syntax: a destination's name, a font's name."""
        if key in ("D", "Dest"):
            place = "named_destinations" if place in ("named_destinations", "outlines") else place
        elif key not in ("BaseFont", "FontName"):
            return
        name = name_of(obj)
        if not self.terms.search(name):
            return
        self.count(place)
        if self.clean:
            new = mupdf.pdf_new_name(self.terms.scrub(name) or "redacted")
            if isinstance(key, int):
                mupdf.pdf_array_put(holder, key, new)
            else:
                mupdf.pdf_dict_puts(holder, key, new)

    def rename_keys(self, obj, place):
        """Keys that are free text: the names of an old-style /Dests dictionary, the custom keys
        of /Info."""
        for name, value in dict_items(obj):
            if not self.terms.search(name):
                continue
            self.count(place)
            if self.clean:
                mupdf.pdf_dict_dels(obj, name)
                mupdf.pdf_dict_puts(obj, self.terms.scrub(name) or "redacted", value)
