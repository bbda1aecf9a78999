# The candidate engines of the structure benchmark, run outside Quire on the same PDFs as the chosen
# one: pymupdf4llm in its layout mode (an ONNX layout model shipped in pymupdf-layout, nothing
# downloaded) and in its rule-based mode, the one pdf-to-markdown runs.
# Usage: candidates.py layout|rules IN.pdf OUT.md  (with the pymupdf4llm venv's python)
import sys

import pymupdf4llm

if __name__ == "__main__":
    mode, source, target = sys.argv[1:4]
    pymupdf4llm.use_layout(mode == "layout")
    with open(target, "w", encoding="utf-8") as out:
        out.write(pymupdf4llm.to_markdown(source, show_progress=False))
