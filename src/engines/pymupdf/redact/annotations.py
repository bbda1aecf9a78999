# The annotations of a page, before its text is redacted (MuPDF's redaction edits the page's own
# content, never an annotation's appearance). An annotation under an area, or with a match in its
# strings or in the text its appearance shows, is deleted; a link only under an area (its strings
# are cleaned by the document walk). A form field under an area is deleted whole (every widget of
# it, on any page, and its entry in the form); a field with a match keeps its place: the match
# leaves its value, default, tooltip, name and options, and its appearance is drawn anew from the
# cleaned value. Widgets are not in PyMuPDF's page.annots(): page.widgets().
from itertools import chain

import pymupdf
from pymupdf import mupdf

from document_walk import DocumentWalk
from pdf_objects import is_null, pdf_document, remove_from_array


def annotation_text_matches(doc, annot, terms):
    for key in doc.xref_get_keys(annot.xref):
        kind, value = doc.xref_get_key(annot.xref, key)
        if kind == "string" and key not in ("DA", "DS") and terms.search(value):
            return True
    return bool(terms) and terms.search(annot.get_text())


def clean_annotations(doc, page, terms, areas):
    """Deletes the annotations and links under an area or with a match; returns how many."""
    doomed = [
        a for a in page.annots() or []
        if a.type[0] != pymupdf.PDF_ANNOT_REDACT
        and (any(a.rect.intersects(r) for r in areas) or annotation_text_matches(doc, a, terms))
    ]
    for annot in doomed:
        page.delete_annot(annot)
    links = [
        link for link in page.get_links() if any(pymupdf.Rect(link["from"]).intersects(r) for r in areas)
    ]
    for link in links:
        page.delete_link(link)
    return len(doomed) + len(links)


def field_of(pdf, widget_xref):
    """The terminal field a widget belongs to: itself when it has a name (/T), else its parent."""
    widget = mupdf.pdf_load_object(pdf, widget_xref)
    parent = mupdf.pdf_dict_gets(widget, "Parent")
    if is_null(mupdf.pdf_dict_gets(widget, "T")) and not is_null(parent):
        return parent
    return mupdf.pdf_new_indirect(pdf, widget_xref, 0)


def widgets_of(pdf, field):
    kids = mupdf.pdf_dict_gets(field, "Kids")
    if is_null(kids):
        return {mupdf.pdf_to_num(field)}
    return {mupdf.pdf_to_num(mupdf.pdf_array_get(kids, i)) for i in range(mupdf.pdf_array_len(kids))}


def unlink_field(pdf, field):
    """Takes `field` out of its parent's /Kids (and an emptied parent out of its own) or /Fields."""
    parent = mupdf.pdf_dict_gets(field, "Parent")
    num = mupdf.pdf_to_num(field)
    if is_null(parent):
        form = mupdf.pdf_dict_getp(mupdf.pdf_trailer(pdf), "Root/AcroForm/Fields")
        if mupdf.pdf_is_array(form):
            remove_from_array(form, num)
        return
    kids = mupdf.pdf_dict_gets(parent, "Kids")
    if mupdf.pdf_is_array(kids) and remove_from_array(kids, num) and mupdf.pdf_array_len(kids) == 0:
        unlink_field(pdf, parent)


def delete_field(doc, page, widget_xref):
    """Deletes the whole field of a widget: all its widgets on any page, then the field itself."""
    pdf = pdf_document(doc)
    field = field_of(pdf, widget_xref)
    doomed = widgets_of(pdf, field)
    deleted = set()
    # Most fields have their widgets on one page: the others are looked through only if need be.
    for where in chain([page], (p for p in doc if p.number != page.number)):
        for widget in list(where.widgets()):
            if widget.xref in doomed - deleted:
                deleted.add(widget.xref)
                where.delete_widget(widget)
        if deleted >= doomed:
            break
    unlink_field(pdf, field)
    return doomed


def field_chain(pdf, xref):
    """A widget and the fields above it, whose entries it inherits (value, default, flags)."""
    found, obj = [], mupdf.pdf_new_indirect(pdf, xref, 0)
    while not is_null(obj) and mupdf.pdf_to_num(obj) not in {mupdf.pdf_to_num(o) for o in found}:
        found.append(obj)
        obj = mupdf.pdf_dict_gets(obj, "Parent")
    return found


def shown_text(widget):
    """The text a widget's appearance shows (PyMuPDF keeps the widget's annotation in `_annot`;
    page.load_annot() finds no widgets)."""
    annot = getattr(widget, "_annot", None)
    return annot.get_text() if annot is not None else ""


def clean_widgets(doc, page, terms, areas, counts):
    """Deletes the fields under an area; cleans the others. Returns how many fields were deleted."""
    under = [w.xref for w in page.widgets() if any(w.rect.intersects(r) for r in areas)]
    gone, fields = set(), 0
    for xref in under:
        if xref not in gone:
            gone |= delete_field(doc, page, xref)
            fields += 1
    if not terms:
        return fields
    pdf = pdf_document(doc)
    walk = DocumentWalk(doc, terms)
    redraw = set()
    for widget in page.widgets():
        before = sum(walk.counts.values())
        for obj in field_chain(pdf, widget.xref):
            walk.visit(obj, "form_fields")
        if sum(walk.counts.values()) > before or terms.search(shown_text(widget)):
            redraw.add(widget.xref)
    for place, n in walk.counts.items():
        counts[place] = counts.get(place, 0) + n
    for widget in page.widgets():
        if widget.xref in redraw:
            try:
                widget.update()
            except Exception:
                # A field PyMuPDF cannot draw (a signature, an odd type): its appearance is
                # dropped below if it shows a match.
                pass
    for widget in page.widgets():
        # An appearance that still shows a match (drawn by another program, not from the value)
        # is dropped: viewers draw the field from its cleaned value instead.
        if widget.xref in redraw and terms.search(shown_text(widget)):
            doc.xref_set_key(widget.xref, "AP", "null")
            counts["form_fields"] = counts.get("form_fields", 0) + 1
    return fields
