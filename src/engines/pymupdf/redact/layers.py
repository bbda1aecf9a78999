# Optional content (layers): MuPDF extracts and redacts only the content of layers that are on,
# yet a layer that is off is in the file and one click in a viewer's layer panel away. The pages
# are therefore redacted with every layer on, then with every layer off (content shown only when
# layers are off, through a membership policy such as /AllOff), and the document's own layer
# configuration is put back afterwards. MuPDF reads the configuration when it opens a document, so
# each switch is a write and a reopen.
import pymupdf


class Layers:
    def __init__(self, doc):
        self.ocgs = list(doc.get_ocgs() or {})
        self.saved = self._read(doc) if self.ocgs else None

    def __bool__(self):
        return bool(self.ocgs)

    @staticmethod
    def _holder(doc):
        """Where the default configuration /D is written: (object number, key path)."""
        kind, value = doc.xref_get_key(doc.pdf_catalog(), "OCProperties")
        if kind == "xref":
            return int(value.split()[0]), "D"
        return doc.pdf_catalog(), "OCProperties/D"

    def _read(self, doc):
        holder, key = self._holder(doc)
        kind, value = doc.xref_get_key(holder, key)
        if kind == "xref":
            num = int(value.split()[0])
            return "object", num, doc.xref_object(num, compressed=True)
        return "entry", holder, key, value if kind != "null" else None

    def switched(self, doc, on):
        """The document reopened with every layer on (or off)."""
        if on:
            doc.set_layer(-1, basestate="ON", on=self.ocgs, off=[])
        else:
            doc.set_layer(-1, basestate="OFF", on=[], off=self.ocgs)
        return pymupdf.open("pdf", doc.tobytes())

    def restored(self, doc):
        """The document reopened with its own layer configuration."""
        if self.saved[0] == "object":
            _, num, source = self.saved
            doc.update_object(num, source)
        else:
            _, holder, key, value = self.saved
            doc.xref_set_key(holder, key, value if value is not None else "null")
        return pymupdf.open("pdf", doc.tobytes())
