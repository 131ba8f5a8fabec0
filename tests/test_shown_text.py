"""The reading tools show a chunk without the blank lines that hidden markup leaves behind.

What a reader never sees (an MDX component's tags, twoslash setup, comments) stays in the stored
text as blank lines, so that its lines are the file's (`docsmcp diff` numbers lines by them). On
React's and tRPC's pages that showed as gaps of five to nine blank lines in `get_doc`; 15 % of
the chunks of the 40 judged sites (bench/sites) have such a run. Code keeps its own blank lines.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import build_bundle
from docsmcp_runtime.bundle.shown import shown
from mcp_client import McpSession, text_of

# Shaped like react.dev's pages: an <Intro> and a <Note> around prose, a commented-out line.
PAGE = """---
title: Add React to a page
---

<Intro>

If you want to add interactivity to an existing page, render components anywhere.

</Intro>

{/* TODO: a video here */}

<Note>

**You need Node.js for local development.**

</Note>

## Install

```python
first = 1



last = 2
```

Done.
"""


def test_a_run_of_blank_lines_is_one_and_code_keeps_its_own() -> None:
    assert shown("a\n\n\n\nb") == "a\n\nb"
    assert shown("a\n \n\t\nb") == "a\n\nb"  # lines of spaces are blank too
    assert shown("a\n\nb") == "a\n\nb"
    code = "```js\nx\n\n\n\ny\n```\n\n\n\nz"
    assert shown(code) == "```js\nx\n\n\n\ny\n```\n\nz"
    # A fence line inside code (a longer fence around it, or an info string) closes nothing.
    nested = "````md\n```\n\n\n\n```\n````\n\n\nz"
    assert shown(nested) == "````md\n```\n\n\n\n```\n````\n\nz"
    assert shown("~~~\n```py\n\n\n~~~\n\n\nz") == "~~~\n```py\n\n\n~~~\n\nz"


def test_get_doc_get_page_and_resources_show_no_gaps(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "add.mdx").write_text(PAGE, encoding="utf-8")
    bundle = build_bundle(docs, tmp_path / "idx")
    with McpSession(bundle) as s:
        first = s.get_doc("add.mdx#_preamble")
        assert "render components anywhere." in first and "Node.js" in first
        assert "\n\n\n" not in first
        install = s.get_doc("add.mdx#install")
        assert "first = 1\n\n\n\nlast = 2" in install  # the code as written
        page = s.call("get_page", {"path": "add.mdx"})
        text = json.loads(text_of(page))["text"]
        assert "\n\n\n" not in text.replace("first = 1\n\n\n\nlast", "")
        assert "first = 1\n\n\n\nlast = 2" in text
        listed = s._portal.call(s.client.list_resources).resources
        (uri,) = [str(r.uri) for r in listed if str(r.uri).endswith("/add.mdx")]
        read = s._portal.call(s.client.read_resource, uri)
        assert "\n\n\n" not in read.contents[0].text.replace("first = 1\n\n\n\nlast", "")
