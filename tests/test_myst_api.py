"""A MyST page's Sphinx API blocks (sources/formats/markdown/myst_rst.py): ```` ```{eval-rst} ````
bodies and MyST's own form of the domain and autodoc directives reach the API registry as
on a `.rst` page (pallets/click's docs gave 1 entry; 167 with `--api-source src`)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FUZZ, build_bundle
from docsmcp.sources.formats.markdown.myst_rst import myst_to_markdown
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

SOURCE = '''\
"""A tiny CLI kit."""


def echo(message: str = "", err: bool = False) -> None:
    """Print a message.

    :param message: The text to print.
    :param err: Write to stderr instead.
    """


def _hidden() -> None:
    """Not public."""


class Command:
    """A command.

    :param name: Its name.
    """

    def __init__(self, name: str) -> None:
        self.name = name

    def invoke(self, ctx: object) -> int:
        """Run the command's callback."""
        return 0
'''

API = """\
# API

```{currentmodule} kit
```

## Utilities

```{eval-rst}
.. autofunction:: echo
```

## Commands

```{autoclass} Command
:members:
```

## Hand-written

````{py:function} pause(seconds: float) -> None
Wait a while (see {py:func}`echo`).

:param seconds: How long.
````

```markdown
```{py:function} shown_as_an_example()
```
```
"""


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text('project = "kit"\nextensions = ["myst_parser"]\n')
    (docs / "index.md").write_text("# Kit\n\nSee {doc}`api`.\n")
    (docs / "api.md").write_text(API)
    src = tmp_path / "src" / "kit"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text(SOURCE)
    return docs, tmp_path / "src"


def test_eval_rst_and_myst_directives_reach_the_api_registry(tmp_path: Path) -> None:
    docs, src = _tree(tmp_path)
    out = build_bundle(docs, tmp_path / "idx", "--api-source", src)
    with McpSession(out) as s:
        echo = json.loads(s.call("get_api_reference", {"method": "kit.echo"}).content[0].text)
        invoke = s.call("get_api_reference", {"method": "kit.Command.invoke"})
        pause = json.loads(s.call("get_api_reference", {"method": "pause"}).content[0].text)
        example = s.call("get_api_reference", {"method": "shown_as_an_example"})
        hidden = s.call("get_api_reference", {"method": "_hidden"})
        hits = s.search(query="print a message to stderr", limit=3)["hits"]
    entry = echo["entries"][0]
    assert entry["name"] == "kit.echo" and entry["category"] == "Utilities"
    assert entry["signature"].startswith("echo(message: str")
    assert [p["name"] for p in entry["parameters"]] == ["message", "err"]
    assert entry["chunk_id"].startswith("api.md#")
    assert not invoke.is_error and "Run the command" in invoke.content[0].text
    assert pause["entries"][0]["name"] == "kit.pause"  # (the page's current module)
    assert "Not found" in example.content[0].text or "not found" in example.content[0].text
    assert "not found" in hidden.content[0].text
    assert hits[0]["chunk_id"].startswith("api.md#api/utilities")


def test_without_api_source_the_hand_written_objects_still_count(tmp_path: Path) -> None:
    docs, _ = _tree(tmp_path)
    out = build_bundle(docs, tmp_path / "idx")
    with McpSession(out) as s:
        pause = s.call("get_api_reference", {"method": "kit.pause"})
        page = s.call("get_doc", {"path": "api.md"}).content[0].text
    assert not pause.is_error and "How long" in pause.content[0].text
    assert "```{py:function}" not in page.split("```markdown")[0]  # (the example stays)


def test_a_page_without_api_blocks_is_not_converted() -> None:
    assert myst_to_markdown("a.md", "# A\n\n```{note}\nHi.\n```\n") is None


@FUZZ
@given(
    st.lists(
        st.sampled_from(
            [
                "```{eval-rst}",
                "```",
                "````",
                "```{py:function} f(x)",
                "```{autoclass} A",
                ":members:",
                "---",
                "key: value",
                ".. py:class:: B",
                "   .. py:method:: m()",
                "```python",
                "text {py:func}`f`",
                "## H",
                "",
                "```{currentmodule} m",
                ":::{py:data} D",
                ":::",
            ]
        ),  # fmt: skip
        max_size=30,
    )
)
def test_myst_api_blocks_never_raise_and_map_every_line(lines: list[str]) -> None:
    done = myst_to_markdown("p.md", "\n".join(lines))
    if done is not None:
        assert len(done.line_map) == done.text.count("\n") + 1
        assert all(0 <= x < max(len(lines), 1) for x in done.line_map)
