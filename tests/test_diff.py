"""`docsmcp diff OLD NEW`: sections added, removed, changed, moved and unchanged between two real
bundles built from hand-made corpora (and, in the corpus tier, the two yellow-docs versions)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from conftest import build_bundle, corpus, run_docsmcp
from docsmcp.commands.diff import (
    EXCERPT_CHARS,
    EXCERPT_LINE_CHARS,
    EXCERPT_LINES,
    KINDS,
    SCHEMA,
    Section,
    diff_bundles,
    excerpt,
)
from mcp_client import McpSession, text_of

LOREM = (
    "The client keeps one connection per region and retries idempotent calls with jittered "
    "backoff. Timeouts apply per attempt, and the last error is raised once the budget is spent. "
)
KNOBS = (
    "Raise the pool size when many requests wait for a connection. Lower the batch size when "
    "memory is tight; each batch holds its responses until the caller reads them. The cache of "
    "parsed documents is bounded and evicts the least recently used entries first. "
)

OLD = {
    "guide.md": (
        "# Guide\n\nHow to use the library in everyday code.\n\n"
        f"## Install\n\nRun `pip install acme` and import it. {LOREM}\n\n"
        f"## Usage\n\nCall `acme.connect()` first.\n{LOREM}\nThen call `client.run()`.\n\n"
        "## Legacy mode\n\nThe legacy mode talks to the version 1 servers over plain HTTP; it "
        "is kept for old deployments and will go away.\n"
    ),
    "api.md": f"# API\n\n## Client\n\n{LOREM * 3}\n\n## Errors\n\nEvery error has a code.\n",
    "old-name.md": (
        "# Migration\n\nMoving from version 1 to version 2 of the library.\n\n"
        f"## Steps\n\nFirst upgrade the servers, then the clients. {LOREM}\n\n"
        f"## Notes\n\nKeep both versions running for a week. {KNOBS}\n"
    ),
    "tuning.md": (
        f"# Tuning\n\nSettings that change how fast the client is. {LOREM}\n\n"
        f"## Performance knobs\n\n{KNOBS * 2}\n"
    ),
}
NEW = {
    "guide.md": (
        "# Guide\n\nHow to use the library in everyday code.\n\n"
        f"## Install\n\nRun `pip install acme` and import it. {LOREM}\n\n"
        f"## Usage\n\nCall `acme.connect(region)` first.\n{LOREM}\nThen call `client.run()`.\n\n"
        "## Streaming\n\nStream results with `client.stream()` to read rows as they arrive "
        "instead of waiting for the whole answer.\n"
    ),
    "api.md": OLD["api.md"],
    "guides/migration.md": OLD["old-name.md"],
    "performance.md": (
        f"# Performance\n\nSettings that change how fast the client is. {LOREM}\n\n"
        f"## Knobs\n\n{KNOBS * 2}\n"
    ),
}
ENTRY_KEYS = {
    "kind",
    "match",
    "old_id",
    "new_id",
    "heading",
    "old_heading",
    "old_path",
    "new_path",
    "old_lines",
    "new_lines",
    "similarity",
    "excerpt",
}


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("diff")
    old = build_bundle(_write(tmp / "v1", OLD), tmp / "old")
    new = build_bundle(_write(tmp / "v2", NEW), tmp / "new")
    return old, new


def _json(*args: str | Path) -> dict:
    proc = run_docsmcp("diff", *args, "--json")
    assert proc.returncode == 0 and not proc.stderr
    return json.loads(proc.stdout)


def _by_kind(report: dict) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {kind: [] for kind in KINDS}
    for entry in report["entries"]:
        out[entry["kind"]].append(entry)
    return out


def test_every_kind_is_found(bundles: tuple[Path, Path]) -> None:
    report = _json(*bundles)
    assert report["counts"] == {
        "added": 1,
        "removed": 1,
        "changed": 1,
        "moved": 5,
        "unchanged": 4,
    }
    kinds = _by_kind(report)
    assert [e["new_id"] for e in kinds["added"]] == ["guide.md#guide/streaming"]
    assert [e["old_id"] for e in kinds["removed"]] == ["guide.md#guide/legacy-mode"]
    [changed] = kinds["changed"]
    assert changed["old_id"] == changed["new_id"] == "guide.md#guide/usage"
    assert changed["match"] == "id" and 0.9 < changed["similarity"] < 1
    assert "-Call `acme.connect()` first." in changed["excerpt"]
    assert "+Call `acme.connect(region)` first." in changed["excerpt"]
    assert changed["excerpt"].startswith("@@ -10,3 +10,3 @@")  # source-file line numbers
    moved = {(e["old_id"], e["new_id"]): e for e in kinds["moved"]}
    # A page moved whole: paired by heading trail, text identical.
    page = moved[("old-name.md#migration/steps", "guides/migration.md#migration/steps")]
    assert page["match"] == "heading" and page["similarity"] == 1.0 and page["excerpt"] is None
    # A page moved and its headings renamed: paired by text, the heading change in the excerpt.
    knobs = moved[("tuning.md#tuning/performance-knobs", "performance.md#performance/knobs")]
    assert knobs["match"] == "text" and 0.5 <= knobs["similarity"] < 1
    assert knobs["heading"] == "Performance > Knobs"
    assert knobs["old_heading"] == "Tuning > Performance knobs"
    assert "-## Performance knobs\n+## Knobs" in knobs["excerpt"]
    assert report["pages"] == {
        "added": [],
        "removed": [],
        "moved": [
            {"old_path": "old-name.md", "new_path": "guides/migration.md", "sections": 3},
            {"old_path": "tuning.md", "new_path": "performance.md", "sections": 2},
        ],
    }


def test_json_schema(bundles: tuple[Path, Path]) -> None:
    old, new = bundles
    report = _json(old, new)
    assert set(report) == {"schema", "old", "new", "counts", "pages", "entries", "omitted"}
    assert report["schema"] == SCHEMA
    assert report["old"]["bundle"] == str(old) and report["old"]["sections"] == 11
    assert report["new"]["name"] == "v2" and report["new"]["sections"] == 11
    assert len(report["new"]["bundle_id"]) == 32
    assert list(report["counts"]) == list(KINDS)
    counts = report["counts"]
    shared = counts["changed"] + counts["moved"] + counts["unchanged"]
    assert counts["added"] + shared == report["new"]["sections"]
    assert counts["removed"] + shared == report["old"]["sections"]
    assert report["omitted"] == {"added": 0, "removed": 0, "changed": 0, "moved": 0}
    for entry in report["entries"]:
        assert set(entry) == ENTRY_KEYS
        assert entry["kind"] in KINDS[:4]  # unchanged sections are counted, not listed
        has_old, has_new = entry["old_id"] is not None, entry["new_id"] is not None
        assert (has_old, has_new) == {
            "added": (False, True),
            "removed": (True, False),
        }.get(entry["kind"], (True, True))
        assert (entry["match"] is None) == (entry["kind"] in ("added", "removed"))
        assert (entry["similarity"] is None) == (entry["kind"] in ("added", "removed"))
        for side in ("old", "new"):
            lines = entry[f"{side}_lines"]
            assert lines is None or (len(lines) == 2 and 1 <= lines[0] <= lines[1])
    # Entries come by kind, then in bundle order.
    order = [KINDS.index(e["kind"]) for e in report["entries"]]
    assert order == sorted(order)


def test_output_is_deterministic(bundles: tuple[Path, Path]) -> None:
    for flags in ((), ("--json",)):
        first = run_docsmcp("diff", *bundles, *flags).stdout
        assert run_docsmcp("diff", *bundles, *flags).stdout == first


def test_text_report(bundles: tuple[Path, Path]) -> None:
    old, new = bundles
    proc = run_docsmcp("diff", old, new)
    assert proc.returncode == 0 and not proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[:5] == [
        f"old: {old} (v1, 11 sections)",
        f"new: {new} (v2, 11 sections)",
        "1 added, 1 removed, 1 changed, 5 moved, 4 unchanged",
        "pages: 0 added, 0 removed, 2 moved",
        "  old-name.md -> guides/migration.md (3 sections)",
    ]
    assert "added (1):" in lines and "moved (5):" in lines
    assert "  guide.md#guide/streaming — Guide > Streaming" in lines
    assert (
        "  tuning.md#tuning/performance-knobs -> performance.md#performance/knobs — "
        "Tuning > Performance knobs -> Performance > Knobs (by text, similarity 0.98)"
    ) in lines
    assert "    -Call `acme.connect()` first." in lines


def test_limit_caps_each_kind(bundles: tuple[Path, Path]) -> None:
    report = _json(*bundles, "--limit", "1")
    assert report["counts"]["moved"] == 5
    assert [e["kind"] for e in report["entries"]] == ["added", "removed", "changed", "moved"]
    assert report["omitted"] == {"added": 0, "removed": 0, "changed": 0, "moved": 4}
    text = run_docsmcp("diff", *bundles, "--limit", "0").stdout
    assert "moved (5; 0 listed)" not in text and "guide.md#guide/streaming" not in text
    assert text.splitlines()[-1] == "... 8 more entries not listed (--limit 0 per kind)"


def test_a_bundle_against_itself(bundles: tuple[Path, Path]) -> None:
    old, _ = bundles
    report = _json(old, old)
    assert report["counts"] == dict.fromkeys(KINDS, 0) | {"unchanged": 11}
    assert report["entries"] == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{tmp}/missing", "{new}"], "docsmcp: error: bundle directory not found: {tmp}/missing"),
        (["{new}", "{tmp}"], "docsmcp: error: {tmp}/metadata.json: missing (not a docsmcp bundle)"),
        (["{broken}", "{new}"], "docsmcp: error: {broken}/metadata.json: "),
        (["{old}", "{new}", "--limit", "-1"], "docsmcp: error: --limit must be 0 or more, not -1"),
        (
            ["{old}", "{new}", "--min-similarity", "0"],
            "docsmcp: error: --min-similarity must be in (0, 1], not 0",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    bundles: tuple[Path, Path], tmp_path: Path, args: list[str], message: str
) -> None:
    old, new = bundles
    broken = tmp_path / "broken"
    broken.mkdir()
    for item in new.iterdir():
        (broken / item.name).write_bytes(item.read_bytes())
    (broken / "metadata.json").write_text("{not json", encoding="utf-8")
    names = {"tmp": tmp_path, "old": old, "new": new, "broken": broken}
    proc = run_docsmcp("diff", *(a.format(**names) for a in args), check=False)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(message.format(**names))
    assert "Traceback" not in proc.stderr


def _section(text: str, line_start: int = 1) -> Section:
    lines = text.count("\n") + 1
    return Section(0, "a.md#x", "a.md", "X", line_start, line_start + lines - 1, text)


def test_excerpt_is_bounded() -> None:
    old = _section("\n".join(f"line {n} " + "old words " * 60 for n in range(200)))
    new = _section("\n".join(f"line {n} " + "new words " * 60 for n in range(200)))
    text = excerpt(old, new)
    assert text is not None
    assert len(text) <= EXCERPT_CHARS and text.count("\n") < EXCERPT_LINES
    assert text.endswith("\n…")
    assert all(len(line) <= EXCERPT_LINE_CHARS + 1 for line in text.split("\n"))
    many = excerpt(_section("\n".join(map(str, range(100)))), _section("\n".join("abc")))
    assert many is not None and many.count("\n") == EXCERPT_LINES - 1
    assert excerpt(old, old) is None


def test_excerpt_shows_the_edit_in_a_long_line() -> None:
    words = " ".join(f"w{n}" for n in range(400))
    old = _section(f"# T\n\n{words}\n", line_start=40)
    new = _section(f"# T\n\n{words.replace('w300', 'CHANGED')}\n", line_start=40)
    text = excerpt(old, new)
    assert text is not None
    head, context, minus, plus = text.split("\n")
    assert (head, context) == ("@@ -41,2 +41,2 @@", " ")  # source lines 41-42, one of context
    assert "w300" in minus and minus.startswith("-…") and minus.endswith("…")
    assert "CHANGED" in plus


def test_the_api_reads_bundles_as_the_cli_does(bundles: tuple[Path, Path]) -> None:
    report = diff_bundles(*bundles)
    assert report.to_json() == _json(*bundles)


@pytest.mark.corpus
def test_yellow_docs_versions(tmp_path: Path) -> None:
    """The commands of docs/tools.md, *What changed*, on yellow-docs (corpus path from
    $DOCSMCP_SHARED): the frozen 0.5.x copy against the current docs, each folder built as its
    own bundle."""
    yellow = corpus("yellow-docs")  # the corpus tier fails, never skips, without its corpora
    old, new = tmp_path / "idx-yellow-0.5", tmp_path / "idx-yellow-next"
    run_docsmcp("build", "--docs-dir", yellow / "versioned_docs" / "version-0.5.x", "--out", old)
    run_docsmcp("build", "--docs-dir", yellow / "docs", "--out", new)
    started = time.perf_counter()
    proc = run_docsmcp("diff", old, new, "--json")
    assert time.perf_counter() - started < 10  # ~0.7 s measured, process start included
    report = json.loads(proc.stdout)
    counts = report["counts"]
    # Measured: 422 added, 1 removed, 7 changed, 28 moved, 520 unchanged (556 -> 977 sections,
    # sections split above 2,500 characters).
    assert 400 <= counts["added"] <= 450
    assert counts["removed"] <= 5
    assert 4 <= counts["changed"] <= 12
    assert 25 <= counts["moved"] <= 37
    assert 500 <= counts["unchanged"] <= 590
    assert {(m["old_path"], m["new_path"]) for m in report["pages"]["moved"]} == {
        (f"manuals/{name}.md", f"guides/manuals/{name}.md")
        for name in (
            "request-asset-support",
            "request-blockchain-support",
            "running-clearnode-locally",
        )
    }
    assert "build/sdk/go/api-reference.mdx" in report["pages"]["added"]
    changed = {e["new_id"]: e for e in report["entries"] if e["kind"] == "changed"}
    step2 = changed["build/quick-start/index.md#quick-start-guide/step-2-connect-to-clearnode"]
    assert "-import { createAppSessionMessage, parseRPCResponse }" in step2["excerpt"]
    assert "+import { createAppSessionMessage, parseAnyRPCResponse }" in step2["excerpt"]
    lines = run_docsmcp("diff", old, new, "--limit", "3").stdout.splitlines()
    assert lines[2] == ", ".join(f"{counts[k]} {k}" for k in KINDS)
    assert f"added ({counts['added']}; 3 listed):" in lines
    # The same comparison as an MCP tool, when both versions are served as one library.
    for bundle, version in ((old, "0.5.x"), (new, "1.0")):
        run_docsmcp(
            "build",
            "--docs-dir",
            yellow / ("docs" if version == "1.0" else "versioned_docs/version-0.5.x"),
            "--out",
            bundle,
            "--name",
            "yellow",
            "--corpus-version",
            version,
        )
    with McpSession([old, new]) as session:
        result = session.call("compare_versions", {"limit": 500})
        assert not result.is_error, text_of(result)
        tool = result.structured_content
        assert (tool["old_version"], tool["new_version"]) == ("0.5.x", "1.0")
        assert tool["counts"] == counts
        entry = next(e for e in tool["entries"] if e["new_id"] == "yellow@1.0:" + step2["new_id"])
        assert entry["excerpt"] == step2["excerpt"]
        hits = session.search(query="createAppSessionMessage", version="0.5.x", limit=3)["hits"]
        assert hits and all(h["chunk_id"].startswith("yellow@0.5.x:") for h in hits)
