"""Generates the sync client (src/quire/_sync/) from the async one (src/quire/_async/), as httpcore
does, so both keep one shape. Run after changing _async/; tests/test_shape.py fails while they differ.

    python scripts/gen_sync.py [--check]
"""

from __future__ import annotations

import difflib
import sys
import tempfile
from pathlib import Path

import unasync

ROOT = Path(__file__).resolve().parent.parent / "src" / "quire"
REPLACEMENTS = {
    "AsyncClient": "Client",
    "AsyncTransport": "SyncTransport",
    "AsyncQuire": "Quire",
    "AsyncJobs": "Jobs",
    "AsyncTools": "Tools",
    "AsyncBatches": "Batches",
    "AsyncRecipes": "Recipes",
    "AsyncUploads": "Uploads",
    "AsyncWebhooks": "Webhooks",
    "AsyncAccounts": "Accounts",
    "AsyncKeys": "Keys",
    "aconnect_sse": "connect_sse",
    "aiter_sse": "iter_sse",
    "aiter_bytes": "iter_bytes",
    "aread": "read",
    "aclose": "close",
    "_backend_async": "_backend_sync",
    "__aenter__": "__enter__",
    "__aexit__": "__exit__",
    # `Awaitable[str]` (imported from typing) becomes `Union[str]`, which is `str`.
    "Awaitable": "Union",
}


def generate(into: Path) -> list[Path]:
    sources = sorted((ROOT / "_async").glob("*.py"))
    rule = unasync.Rule(str(ROOT / "_async") + "/", str(into) + "/", additional_replacements=REPLACEMENTS)
    unasync.unasync_files([str(p) for p in sources], rules=[rule])
    return [into / p.name for p in sources]


def main() -> int:
    target = ROOT / "_sync"
    if "--check" not in sys.argv:
        generate(target)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        stale = []
        for made in generate(Path(tmp)):
            current = target / made.name
            have = current.read_text() if current.exists() else ""
            if have != made.read_text():
                stale.append("".join(difflib.unified_diff(have.splitlines(True), made.read_text().splitlines(True), str(current), "generated")))
        print("\n".join(stale))
        return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
