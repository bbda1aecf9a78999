"""Sample inputs and options per tool, the same ones test/support/tool-samples.ts gives the TypeScript
tests: corpus files by accepted type, an inline HTML page, the acroform PDF for tools that need form
fields (read from the built tool definitions), each tool's first published options example, and a
PKCS#12 bundle made with openssl for options that carry one (as test/support/test-pki.ts does)."""

from __future__ import annotations

import base64
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from quire import NamedFile, Tool

from ..conftest import CORPUS, REPO

SAMPLES = {
    "application/pdf": "pypdf-samples__pdflatex-4-pages.pdf",
    "image/png": "ocrmypdf__typewriter.png",
    "image/jpeg": "ocrmypdf__baiona_cmyk.jpg",
    "image/tiff": "tesseract__phototest.tif",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "gotenberg__page_1.docx",
    "application/vnd.oasis.opendocument.text": "pypdf-samples__libreoffice-form.odt",
    "text/plain": "tesseract__phototest.gt.txt",
}
PDF_HOLDING = {"acroform": "pdfbox__AcroFormsBasicFields.pdf"}
HTML = NamedFile("index.html", b"<!doctype html><title>t</title><p>Hello</p>")
PKCS12_PASSWORD = "example-password"  # the password published examples give (tool-samples.ts)


def _holds() -> dict[str, list[str]]:
    script = "import('./dist/tools/registry.js').then(m => console.log(JSON.stringify(Object.fromEntries(m.tools.map(t => [t.name, t.inputs.holds ?? []])))))"
    out = subprocess.run(["node", "-e", script], cwd=REPO, check=True, capture_output=True, text=True).stdout
    holds: dict[str, list[str]] = json.loads(out)
    return holds


_HOLDS: dict[str, list[str]] | None = None


def inputs_for(tool: Tool) -> list[Path | NamedFile]:
    global _HOLDS
    kind = next((t for t in tool.inputs.accepts if t in SAMPLES or t == "text/html"), None)
    assert kind, f"no sample input for {tool.name}"
    sample: Path | NamedFile
    if kind == "text/html":
        sample = HTML
    elif kind == "application/pdf":
        _HOLDS = _HOLDS or _holds()
        held = _HOLDS.get(tool.name, [])
        sample = CORPUS / (PDF_HOLDING[held[0]] if held else SAMPLES[kind])
    else:
        sample = CORPUS / SAMPLES[kind]
    return [sample] * max(1, tool.inputs.min_files)


def _pkcs12() -> str:
    with tempfile.TemporaryDirectory() as d:
        def f(name: str) -> str:
            return str(Path(d) / name)

        def run(*args: str) -> None:
            subprocess.run(["openssl", *args], check=True, capture_output=True)

        run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f("ca.key"), "-out", f("ca.pem"), "-days", "30",
            "-subj", "/CN=Quire Test CA", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f("leaf.key"), "-out", f("leaf.csr"), "-subj", "/CN=Quire Test Signer")
        Path(f("leaf.ext")).write_text("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\n")
        run("x509", "-req", "-in", f("leaf.csr"), "-CA", f("ca.pem"), "-CAkey", f("ca.key"), "-CAcreateserial",
            "-out", f("leaf.pem"), "-days", "30", "-extfile", f("leaf.ext"))
        Path(f("pass")).write_text(PKCS12_PASSWORD)
        run("pkcs12", "-export", "-inkey", f("leaf.key"), "-in", f("leaf.pem"), "-certfile", f("ca.pem"),
            "-out", f("bundle.p12"), "-passout", f"file:{f('pass')}")
        return base64.b64encode(Path(f("bundle.p12")).read_bytes()).decode()


def options_for(tool: Tool) -> dict[str, Any]:
    examples = tool.options_schema.get("examples") or [{}]
    options = dict(examples[0])
    for name, schema in (tool.options_schema.get("properties") or {}).items():
        if schema.get("contentMediaType") == "application/x-pkcs12" and name in options:
            options[name] = _pkcs12()
    return options
