# Packs a flat OpenDocument text (.fodt, one XML file) into the zipped .odt that Quire's office-to-pdf
# accepts: the body and its automatic styles into content.xml, the styles, page layouts and master
# pages into styles.xml, the metadata into meta.xml, and the manifest. Standard library only.
# Usage: pack_odt.py IN.fodt OUT.odt
import sys
import xml.etree.ElementTree as ET
import zipfile

OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
MANIFEST = "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"
MIMETYPE = "application/vnd.oasis.opendocument.text"


def o(name):
    return f"{{{OFFICE}}}{name}"


def part(root, tag, children):
    """A part document (office:document-content, -styles, -meta) holding copies of `children`."""
    out = ET.Element(o(tag), {o("version"): root.get(o("version"), "1.3")})
    for name in children:
        child = root.find(o(name))
        if child is not None:
            out.append(child)
    return ET.tostring(out, encoding="utf-8", xml_declaration=True)


def pack(source, target):
    for _, (prefix, uri) in ET.iterparse(source, events=("start-ns",)):
        ET.register_namespace(prefix, uri)
    ET.register_namespace("manifest", MANIFEST)

    def fresh():
        return ET.parse(source).getroot()

    content = part(fresh(), "document-content", ["font-face-decls", "automatic-styles", "body"])
    styles = part(fresh(), "document-styles", ["font-face-decls", "styles", "automatic-styles", "master-styles"])
    meta = part(fresh(), "document-meta", ["meta"])
    m = f"{{{MANIFEST}}}"
    manifest = ET.Element(f"{m}manifest", {f"{m}version": "1.3"})
    for path, kind in [("/", MIMETYPE), ("content.xml", "text/xml"), ("styles.xml", "text/xml"),
                       ("meta.xml", "text/xml")]:
        attrs = {f"{m}full-path": path, f"{m}media-type": kind}
        if path == "/":
            attrs[f"{m}version"] = "1.3"
        ET.SubElement(manifest, f"{m}file-entry", attrs)
    with zipfile.ZipFile(target, "w") as z:
        # The mimetype comes first and uncompressed, as the format requires (and type sniffers read).
        z.writestr(zipfile.ZipInfo("mimetype"), MIMETYPE, compress_type=zipfile.ZIP_STORED)
        for name, body in [("content.xml", content), ("styles.xml", styles), ("meta.xml", meta),
                           ("META-INF/manifest.xml", ET.tostring(manifest, encoding="utf-8",
                                                                 xml_declaration=True))]:
            z.writestr(name, body, compress_type=zipfile.ZIP_DEFLATED)


if __name__ == "__main__":
    pack(sys.argv[1], sys.argv[2])
