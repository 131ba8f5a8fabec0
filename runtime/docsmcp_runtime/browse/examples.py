"""Code blocks of the docs (`code.parquet`, bundle-spec.md, *Browse tables*): what
`get_code_examples` returns, in the order of the chunks a search ranks first."""

from __future__ import annotations

import re

import numpy as np

from ..bundle.reader import Bundle
from ..format import CODE_FILE

_TAG_LINE = re.compile(r"^\s*(?:</?[A-Za-z][^>]*>|<!--.*-->)\s*$")
# Characters of code shown per example; longer blocks are cut with a note in the example.
MAX_CODE_CHARS = 4000


class CodeIndex:
    def __init__(self, bundle: Bundle) -> None:
        table = bundle.table(CODE_FILE)
        self.bundle = bundle
        self.available = table is not None
        if table is None:
            self.rows = np.zeros(0, dtype=np.int64)
            self.languages: list[str] = []
            return
        self.rows = table.column("row").to_numpy().astype(np.int64)
        self.languages = table.column("language").to_pylist()
        self.starts = table.column("start").to_numpy().astype(np.int64)
        self.ends = table.column("end").to_numpy().astype(np.int64)
        self.contexts = table.column("context_start").to_numpy().astype(np.int64)
        self.line_starts = table.column("line_start").to_numpy()
        self.line_ends = table.column("line_end").to_numpy()

    def of_row(self, row: int) -> range:
        lo = int(np.searchsorted(self.rows, row, side="left"))
        hi = int(np.searchsorted(self.rows, row, side="right"))
        return range(lo, hi)

    def language_set(self) -> list[str]:
        return sorted({x for x in self.languages if x})

    def example(self, i: int) -> dict:
        bundle = self.bundle
        row = int(self.rows[i])
        text = bundle.text(row)
        start, end, context = int(self.starts[i]), int(self.ends[i]), int(self.contexts[i])
        code = text[start:end]
        out: dict = {
            "language": self.languages[i],
            "code": code[:MAX_CODE_CHARS],
            "context": _prose(text[context:start]),
            "chunk_id": bundle.id(row),
            "filepath": bundle.paths[row].as_py(),
            "heading": bundle.headings[row].as_py(),
            "breadcrumb": bundle.breadcrumbs[row].as_py(),
            "metadata": bundle.chunk_meta(row),
            "source": {
                "file": bundle.paths[row].as_py(),
                "lines": [int(self.line_starts[i]), int(self.line_ends[i])],
            },
        }
        if len(code) > MAX_CODE_CHARS:
            out["truncated"] = f"{len(code)} characters; read the whole block with get_doc."
        if not out["context"]:
            del out["context"]
        return out


def _prose(before: str) -> str:
    """The prose before a code block: what lies between `context_start` and the code, less the
    opening fence line and lines that are only tags or comments (`<TabItem>`, `<!-- -->`)."""
    kept = [
        line
        for line in before[: before.rstrip("\n").rfind("\n") + 1].splitlines()
        if not _TAG_LINE.match(line)
    ]
    return "\n".join(kept).strip()
