"""Issue 8, item 10 (builder) and the file-name part of item 9: every chunk id the builder
emits is one that `get_doc` accepts back.

A chunk id begins with the file's path, so the builder refuses, with a Problem naming the file
(escaped, on one line), a path that is not UTF-8 (pyarrow used to fail with a traceback), holds
a control character (a tab or newline made ids that search_docs returned and get_doc rejected)
or starts with whitespace (get_doc trims ids). The property test builds real bundles from random
file names and asks the real runtime for every id.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from docsmcp.pipeline.build import build
from docsmcp.pipeline.collect import BuildOptions
from docsmcp.sources.files import shown
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.tools.app import DocsApp
from hostile import collect_docs, fuzz, problems_of, within, write_tree
from hypothesis import given
from hypothesis import strategies as st

CONTROL = (
    "file name contains the control character U+{:04X}; rename it "
    "(a chunk id begins with the path and must be one line of text)"
)
LEADING = "file name starts with whitespace; rename it (chunk ids are trimmed)"


@pytest.mark.parametrize(
    "name, shown_as, why",
    [
        ("a\tb.md", "a\\tb.md", CONTROL.format(0x09)),
        ("new\nline.md", "new\\nline.md", CONTROL.format(0x0A)),
        ("esc\x1b[31m.md", "esc\\x1b[31m.md", CONTROL.format(0x1B)),
        ("del\x7f.md", "del\\x7f.md", CONTROL.format(0x7F)),
        ("nel\x85.md", "nel\\x85.md", CONTROL.format(0x85)),
        ("ls\u2028.md", "ls\\u2028.md", CONTROL.format(0x2028)),
        ("dir\r/a.md", "dir\\r/a.md", CONTROL.format(0x0D)),
        (" lead.md", " lead.md", LEADING),
        ("\xa0nbsp.md", "\xa0nbsp.md", LEADING),
    ],
)
def test_unusable_file_names_are_refused_by_name(
    tmp_path: Path, name: str, shown_as: str, why: str
) -> None:
    write_tree(tmp_path, {"ok.md": "# OK\n\ntext\n", name: "# Odd\n\ntext\n"})
    assert problems_of(collect_docs(tmp_path)) == [f"{shown_as}: {why}"]


def test_file_name_not_utf8_is_refused_by_name(tmp_path: Path) -> None:
    write_tree(tmp_path, {"ok.md": "# OK\n\ntext\n"})
    os.mkdir(os.fsencode(tmp_path) + b"/d\xff")
    with open(os.fsencode(tmp_path) + b"/d\xff/caf\xe9.md", "wb") as f:
        f.write(b"# Cafe\n")
    assert problems_of(collect_docs(tmp_path)) == [
        "d\\xff/caf\\xe9.md: file name is not valid UTF-8; rename it (chunk ids are UTF-8 text)"
    ]


def test_odd_but_usable_names_keep_working(tmp_path: Path) -> None:
    names = ["C# tips.md", "a b.md", "ünï cødé.md", "会话.md", "x%20y.md", "q?.md", "e\u200bz.md"]
    write_tree(tmp_path, {n: f"# {n}\n\ntext\n" for n in names})
    collected = collect_docs(tmp_path)
    assert collected.problems == []
    assert sorted(f.path for f in collected.corpus.files) == sorted(names)


# Any character a Linux file name can hold ('/' and NUL cannot), surrogates aside: the names
# os.fsdecode makes of bytes that are not UTF-8 are covered above.
_NAME = st.text(
    st.characters(exclude_characters="/\x00", exclude_categories=("Cs",)), min_size=1, max_size=12
)


@fuzz(0.1)
@given(st.lists(_NAME, min_size=1, max_size=5, unique_by=str.lower))
def test_every_emitted_chunk_id_is_accepted_by_get_doc(tmp_path_factory, stems) -> None:
    docs = tmp_path_factory.mktemp("docs")
    names = [f"{stem}.md" for stem in stems]
    write_tree(docs, {"index.md": "# Index\n\ntext\n"})
    for k, name in enumerate(names):
        (docs / name).write_text(f"# Page {k}\n\nword{k}\n\n## Part\n\nmore{k}\n")
    problems = problems_of(collect_docs(docs))
    for problem in problems:  # each refusal names one of the files, on one line
        assert any(problem.startswith(f"{shown(n)}: file name ") for n in names), problem
    for name in names:  # build from what is left: its ids must all come back through get_doc
        if any(p.startswith(f"{shown(name)}: ") for p in problems):
            (docs / name).unlink()
    out = tmp_path_factory.mktemp("out") / "idx"
    within(30, lambda: build(BuildOptions(docs_dir=docs), out))
    app = DocsApp(open_bundle(out))
    ids = app.bundle.ids.to_pylist()
    assert "index.md#index" in ids
    for chunk_id in ids:
        result = app.call_tool("get_doc", {"chunk_id": chunk_id})
        assert not result["isError"], (chunk_id, result)
    shutil.rmtree(out)
