"""llms.txt both ways (builder/docsmcp/commands/export.py and sources/formats/llms_full.py):
`docsmcp export --llms-txt` writes llms.txt and llms-full.txt from a real bundle, deterministically
and without clobbering unrelated folders; the builder splits an llms-full.txt back into pages (a
docsmcp export gives back the same pages and chunks behind an `llms-full.txt/` prefix,
other files split at `# ` headings).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import EXAMPLE_DOCS, FUZZ, REPO, build_bundle, run_docsmcp
from docsmcp.sources.files import path_problem
from docsmcp.sources.formats.llms_full import split_llms_full
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.format import CHUNKS_FILE, METADATA_FILE, PAGES_FILE, TABLE_FILES, bundle_id
from hypothesis import given
from hypothesis import strategies as st

PREFIX = "llms-full.txt/"
LINK = re.compile(r"- \[(?P<title>(?:[^\]\\]|\\.)*)\]\((?P<link>[^)\s]+)\)(?:: (?P<desc>.+))?")


def _export(bundle: Path, out: Path, *extra: str | Path) -> tuple[str, str]:
    run_docsmcp("export", "--llms-txt", out, "--bundle", bundle, "--quiet", *extra)
    return (out / "llms.txt").read_text("utf-8"), (out / "llms-full.txt").read_text("utf-8")


def _pages(bundle: Path) -> list[dict]:
    return pq.read_table(bundle / PAGES_FILE).to_pylist()


def _chunks(bundle: Path, prefix: str = "") -> list[tuple[str, str, str]]:
    """(id without `prefix`, heading, text) of every chunk, in row order."""
    b = open_bundle(bundle)
    return [
        (b.id(r).removeprefix(prefix), b.headings[r].as_py(), b.text(r)) for r in range(b.n_chunks)
    ]


# A page whose language tabs are chunks of their own (dialects.py) exports as its chunks' text,
# without the tab markup, so it comes back as plain sections: compared by text only.
TABBED = "guides/errors.mdx"


def _untabbed(chunks: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    return [c for c in chunks if not c[0].startswith(TABBED)]


def _tabbed_text(chunks: list[tuple[str, str, str]]) -> list[str]:
    """The non-blank lines of the tabbed page's chunks, sorted."""
    lines = [x for c in chunks if c[0].startswith(TABBED) for x in c[2].split("\n")]
    return sorted(x for x in lines if x.strip())


def _parse_llms_txt(text: str) -> tuple[list[str], dict[str, list[dict]]]:
    """(lines before the first section, {section: [link lines]})."""
    head, sections, current = [], {}, None
    for line in text.split("\n"):
        if line.startswith("## "):
            current = sections.setdefault(line[3:], [])
        elif current is None:
            head.append(line)
        elif line:
            m = LINK.fullmatch(line)
            assert m, line
            current.append(m.groupdict())
    return head, sections


@pytest.fixture(scope="module")
def exported(example_bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("llms") / "site"
    _export(example_bundle, out)
    return out


# -- export -------------------------------------------------------------------------------------


def test_llms_txt_has_title_summary_a_section_per_top_folder_and_every_page_once(
    example_bundle: Path, exported: Path
) -> None:
    text = (exported / "llms.txt").read_text("utf-8")
    meta = json.loads((example_bundle / METADATA_FILE).read_text("utf-8"))
    head, sections = _parse_llms_txt(text)
    assert head[:4] == [f"# {meta['name']}", "", f"> {meta['description']}", ""]
    assert head[0] == "# acme-sdk" and text.endswith("\n") and "\n\n\n" not in text
    pages = _pages(example_bundle)
    assert list(sections) == ["guides", "python", "typescript"]  # CHANGELOG.md is excluded
    for name, links in sections.items():
        assert [x["link"] for x in links] == [
            p["path"] for p in pages if p["path"].startswith(name)
        ]
    links = [x for links in sections.values() for x in links]
    assert [x["link"] for x in links] == [p["path"] for p in pages]  # every page, once, in order
    assert [x["title"] for x in links] == [p["title"] for p in pages]
    assert [x["desc"] or "" for x in links] == [p["description"] for p in pages]
    assert links[0] == {
        "title": "Authentication",
        "link": "guides/authentication.md",
        "desc": pages[0]["description"],
    }


def test_pages_at_the_root_get_a_section_of_their_own(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    (docs / "overview (draft).md").write_text("# Overview [beta]\n\nWhat Acme is.\n")
    (docs / ".docs-mcp.json").unlink()
    bundle = build_bundle(docs, tmp_path / "idx")
    text, _ = _export(bundle, tmp_path / "site")
    _, sections = _parse_llms_txt(text)
    assert list(sections) == ["Top-level pages", "guides", "python", "typescript"]
    assert [x["link"] for x in sections["Top-level pages"]] == [
        "CHANGELOG.md",
        "overview%20%28draft%29.md",
    ]
    assert sections["Top-level pages"][1]["title"] == "Overview \\[beta\\]"


def test_base_url_links_paths_without_their_extension(example_bundle: Path, tmp_path: Path) -> None:
    for base in ("https://docs.acme.dev/sdk", "https://docs.acme.dev/sdk/"):
        text, _ = _export(example_bundle, tmp_path / "site", "--base-url", base)
        _, sections = _parse_llms_txt(text)
        assert [x["link"] for x in sections["guides"]] == [
            "https://docs.acme.dev/sdk/guides/authentication",
            "https://docs.acme.dev/sdk/guides/errors",
        ]
        assert sections["python"][0]["link"] == "https://docs.acme.dev/sdk/python/README"


def test_llms_full_txt_frames_every_page_with_title_and_source(
    example_bundle: Path, exported: Path
) -> None:
    full = (exported / "llms-full.txt").read_text("utf-8")
    pages = _pages(example_bundle)
    chunks = _chunks(example_bundle)
    assert full.startswith(
        "# Authentication\n<!-- source: guides/authentication.md (15 lines) -->\n\n"
        "# Authentication\n\nEvery request"
    )
    split = split_llms_full(full)
    assert [p.name for p in split] == [p["path"] for p in pages]
    assert [p.title for p in split] == [p["title"] for p in pages]
    for page, row in zip(split, pages, strict=True):
        rows = chunks[row["first_row"] : row["first_row"] + row["chunk_count"]]
        assert page.text == "\n\n".join(text for _, _, text in rows)


def test_export_is_deterministic_and_replaces_an_earlier_export(
    example_bundle: Path, exported: Path, tmp_path: Path
) -> None:
    second = tmp_path / "again"
    _export(example_bundle, second)
    for name in ("llms.txt", "llms-full.txt"):
        assert (second / name).read_bytes() == (exported / name).read_bytes()
    # an earlier export (even one of another bundle, or a leftover of a dead export) is replaced
    (second / "llms.txt").write_text("# stale\n")
    (second / ".llms.txt.tmp-999999999").write_text("partial")
    proc = run_docsmcp("export", "--llms-txt", second, "--bundle", example_bundle)
    assert proc.stdout.startswith(f"wrote {second / 'llms.txt'} (6 pages in 3 sections)")
    assert sorted(p.name for p in second.iterdir()) == ["llms-full.txt", "llms.txt"]
    assert (second / "llms.txt").read_bytes() == (exported / "llms.txt").read_bytes()


def test_export_refuses_a_folder_holding_anything_else(
    example_bundle: Path, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("<p>mine</p>")
    (out / "llms.txt").write_text("# mine\n")
    proc = run_docsmcp("export", "--llms-txt", out, "--bundle", example_bundle, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "index.html" in proc.stderr
    assert (out / "llms.txt").read_text() == "# mine\n" and not (out / "llms-full.txt").exists()
    # the bundle folder itself is not an export either
    proc = run_docsmcp(
        "export", "--llms-txt", example_bundle, "--bundle", example_bundle, check=False
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    file = tmp_path / "file"
    file.write_text("x")
    proc = run_docsmcp("export", "--llms-txt", file, "--bundle", example_bundle, check=False)
    assert proc.returncode == 2 and "is not a directory" in proc.stderr


def test_export_of_a_missing_or_damaged_bundle_fails_in_one_line(
    example_bundle: Path, tmp_path: Path
) -> None:
    proc = run_docsmcp(
        "export", "--llms-txt", tmp_path / "a", "--bundle", tmp_path / "nope", check=False
    )
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    damaged = tmp_path / "damaged"
    shutil.copytree(example_bundle, damaged)
    with open(damaged / CHUNKS_FILE, "r+b") as f:
        f.seek(100)
        f.write(b"\0\0\0\0")
    proc = run_docsmcp("export", "--llms-txt", tmp_path / "b", "--bundle", damaged, check=False)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    assert not (tmp_path / "b").exists()


def test_a_bundle_without_pages_table_exports_from_its_chunk_table(
    example_bundle: Path, exported: Path, tmp_path: Path
) -> None:
    old = tmp_path / "old"
    shutil.copytree(example_bundle, old)
    meta = json.loads((old / METADATA_FILE).read_text("utf-8"))
    for name in TABLE_FILES:
        (old / name).unlink()
        del meta["files"][name]
    meta["bundle_id"] = bundle_id({k: v["sha256"] for k, v in meta["files"].items()})
    (old / METADATA_FILE).write_text(json.dumps(meta), "utf-8")
    text, full = _export(old, tmp_path / "site")
    _, sections = _parse_llms_txt(text)
    links = [x for links in sections.values() for x in links]
    assert [x["link"] for x in links] == [p["path"] for p in _pages(example_bundle)]
    assert all(x["title"] and x["desc"] is None for x in links)  # no descriptions without it
    # the page texts are the same; only titles may differ (first chunk headings)
    ours = [p.text for p in split_llms_full(full)]
    assert ours == [p.text for p in split_llms_full((exported / "llms-full.txt").read_text())]


# -- import ---------------------------------------------------------------------------------------


def test_round_trip_gives_back_the_same_pages_and_chunks(
    example_bundle: Path, exported: Path, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(exported / "llms-full.txt", docs)
    again = build_bundle(docs, tmp_path / "idx")
    before, after = _pages(example_bundle), _pages(again)
    assert [p["path"] for p in after] == [PREFIX + p["path"] for p in before]
    assert [p["title"] for p in after] == [p["title"] for p in before]
    counts = [(p["path"], p["chunk_count"]) for p in before]
    assert [p["chunk_count"] for p in after] == [2 if path == TABBED else n for path, n in counts]
    assert _untabbed(_chunks(again, PREFIX)) == _untabbed(_chunks(example_bundle))
    assert _tabbed_text(_chunks(again, PREFIX)) == _tabbed_text(_chunks(example_bundle))


def test_edited_export_still_splits_at_its_page_markers(exported: Path, tmp_path: Path) -> None:
    full = (exported / "llms-full.txt").read_text("utf-8")
    pages = split_llms_full(full)
    edited = full.replace("needs no downtime.", "needs no downtime.\n\nAn added line.", 1)
    assert edited != full
    again = split_llms_full("Intro written by hand.\n\n" + edited)
    assert [p.name for p in again] == ["index.md"] + [p.name for p in pages]
    assert again[0].text == "Intro written by hand."
    assert again[1].text == pages[0].text.replace(
        "needs no downtime.", "needs no downtime.\n\nAn added line."
    )
    assert [p.text for p in again[2:]] == [p.text for p in pages[1:]]


THIRD_PARTY = """\
Acme docs, concatenated for LLMs.

# Getting started

Install it:

```bash
# not a page: a comment in a code block
pip install acme
```

## Configure

Set `ACME_KEY`.

# Getting started

The same title again, on another page.

# 快速开始 #

中文文档。

   # Payments API ##

Create payments.
"""


def test_third_party_llms_full_txt_splits_on_level_one_headings(tmp_path: Path) -> None:
    pages = split_llms_full(THIRD_PARTY)
    names = [p.name for p in pages]
    assert names[:3] == ["index.md", "getting-started.md", "getting-started-2.md"]
    assert re.fullmatch(r"section-[0-9a-f]{8}\.md", names[3])
    assert names[4] == "payments-api.md"
    assert pages[0].text == "Acme docs, concatenated for LLMs."
    assert "pip install acme" in pages[1].text and "## Configure" in pages[1].text
    assert all(p.title is None for p in pages)

    docs = tmp_path / "docs"
    (docs / "vendor").mkdir(parents=True)
    (docs / "vendor" / "acme.llms-full.txt").write_text(THIRD_PARTY, "utf-8")
    (docs / "intro.md").write_text("# Intro\n\nOwn page.\n", "utf-8")
    bundle = build_bundle(docs, tmp_path / "idx")
    titles = {p["path"]: p["title"] for p in _pages(bundle)}
    assert list(titles) == ["intro.md", *sorted(f"vendor/acme.llms-full.txt/{n}" for n in names)]
    assert titles["vendor/acme.llms-full.txt/index.md"] == "index"  # no heading: the stem
    assert titles["vendor/acme.llms-full.txt/getting-started-2.md"] == "Getting started"
    assert titles["vendor/acme.llms-full.txt/payments-api.md"] == "Payments API"
    ids = [cid for cid, _, _ in _chunks(bundle)]
    assert "vendor/acme.llms-full.txt/getting-started.md#getting-started/configure" in ids

    # globs select the pages of an llms-full.txt by their paths
    proc = run_docsmcp(
        "validate", "--docs-dir", docs, "--exclude", "vendor/acme.llms-full.txt/getting-*"
    )
    assert proc.stdout.startswith("ok: 4 files")


def test_llms_full_txt_is_read_under_the_limits_of_any_file(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "llms-full.txt").write_text("# A\n\n" + "x\n" * 100_001, "utf-8")
    proc = run_docsmcp("validate", "--docs-dir", docs, check=False)
    assert proc.returncode == 1
    assert "llms-full.txt: file has 100,004 lines; at most 100,000" in proc.stderr


def test_docs_commands_run_as_written(
    example_bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = (REPO / "docs" / "sources.md").read_text("utf-8")
    section = page.split("\n## llms.txt\n", 1)[1].split("\n## ", 1)[0]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].split() for line in block.strip().split("\n")]
    assert [c[:2] for c in commands] == [["docsmcp", "export"], ["docsmcp", "build"]]
    monkeypatch.chdir(tmp_path)
    shutil.copytree(example_bundle, "idx")
    for command in commands:  # the build reads the export's site/llms-full.txt back
        run_docsmcp(*command[1:])
    assert _untabbed(_chunks(Path("idx-llms"), PREFIX)) == _untabbed(_chunks(example_bundle))


# -- hostile input ------------------------------------------------------------------------------

_PIECES = st.sampled_from(
    [
        "# ",
        "#",
        "   # ",
        "<!-- source: ",
        " (3 lines) -->",
        " (0 lines) -->",
        " (999999999 lines) -->",
        "a.md",
        "../x.md",
        "/abs.md",
        "dir/",
        "```",
        "~~~",
        "\n",
        "\n\n",
        " ",
        "\t",
        "x",
        "é",
        "\x00",
        "\u2028",
        "\r",
        "## h",
    ]
)


@FUZZ
@given(st.one_of(st.text(max_size=400), st.lists(_PIECES, max_size=60).map("".join)))
def test_splitting_arbitrary_text_never_raises(text: str) -> None:
    pages = split_llms_full(text)
    names = [p.name for p in pages]
    assert len(set(names)) == len(names)
    for name in names:
        assert name.lower().endswith((".md", ".mdx")) and path_problem(name) is None
        assert all(part not in ("", ".", "..") for part in name.split("/"))
    assert all(p.title is None or "\n" not in p.title for p in pages)


# -- real corpus ------------------------------------------------------------------------------


def test_yellow_docs_exports_and_round_trips(yellow_bundle: Path, tmp_path: Path) -> None:
    text, full = _export(yellow_bundle, tmp_path / "site", "--base-url", "https://docs.yellow.org")
    _, sections = _parse_llms_txt(text)
    pages = _pages(yellow_bundle)
    assert list(sections) == ["Top-level pages", "blog", "docs", "src", "versioned_docs"]
    links = [x["link"] for links in sections.values() for x in links]
    assert len(links) == len(pages) == len(set(links))
    assert "https://docs.yellow.org/docs/protocol/app-layer/off-chain/channel-methods" in links
    # built with the corpus's chunking settings, the pages come back chunk for chunk
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "llms-full.txt").write_text(full, "utf-8")
    manifest = {
        "version": "1",
        "strategy": {"chunk_by": "h2", "max_chunk_size": 8000},
        "overrides": [{"pattern": "llms-full.txt/blog/**", "strategy": {"chunk_by": "file"}}],
    }
    (docs / ".docs-mcp.json").write_text(json.dumps(manifest), "utf-8")
    again = build_bundle(docs, tmp_path / "idx")
    assert [p["title"] for p in _pages(again)] == [p["title"] for p in pages]
    assert _chunks(again, PREFIX) == _chunks(yellow_bundle)
