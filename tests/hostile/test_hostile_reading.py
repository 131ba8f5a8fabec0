"""Issue 8, item 6: the builder reads only inside its source roots (DECISIONS.md, *Reading
files*): `--docs-dir` and every `--source-root`.

Real symlinks, FIFOs, sockets and devices in tmp_path: a file, manifest or folder whose real path
leaves every root is refused with a Problem naming it and its target; FIFOs, sockets and devices
are skipped with a warning and never opened; folder symlink loops and diamonds end; symlinks
that stay inside the roots keep working. A property test builds random trees of all of these
and checks that nothing outside the roots ever reaches a chunk.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_docsmcp
from docsmcp.sources.files import Refused, read_file, source_roots
from hostile import Warnings, collect_docs, fuzz, problems_of, within, write_tree
from hypothesis import given
from hypothesis import strategies as st

SECRET = "TOP-SECRET-OUTSIDE"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the docs, with a markdown file and a manifest of its own."""
    return write_tree(
        tmp_path / "outside",
        {
            "secret.md": f"# Secret\n\n{SECRET}\n",
            "sub/more.md": f"# More\n\n{SECRET} again\n",
            ".docs-mcp.json": '{"version": "1", "metadata": {"leak": "yes"}}',
        },
    )


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "docs", {"index.md": "# Index\n\nHello.\n"})


def _text_of(collected) -> str:
    return "\n".join(c.text for c in collected.chunks)


def _refused(path: str, target: Path) -> str:
    return (
        f"{path}: symlink to {target}, outside the source roots (--docs-dir and every "
        "--source-root); refused"
    )


@pytest.mark.parametrize("relative", [False, True])
def test_symlinked_file_leading_outside_is_refused(
    docs: Path, outside: Path, relative: bool
) -> None:
    target = outside / "secret.md"
    (docs / "p.md").symlink_to(os.path.relpath(target, docs) if relative else target)
    (docs / "passwd.md").symlink_to("/etc/passwd")
    collected = collect_docs(docs)
    assert problems_of(collected) == [
        _refused("p.md", target),
        _refused("passwd.md", Path("/etc/passwd")),
    ]
    assert SECRET not in _text_of(collected) and "root:" not in _text_of(collected)


def test_symlinked_manifest_leading_outside_is_refused(docs: Path, outside: Path) -> None:
    (docs / ".docs-mcp.json").symlink_to(outside / ".docs-mcp.json")
    collected = collect_docs(docs)
    assert problems_of(collected) == [_refused(".docs-mcp.json", outside / ".docs-mcp.json")]
    assert "leak" not in collected.taxonomy


def test_symlinked_folder_leading_outside_is_refused_unless_excluded(
    docs: Path, outside: Path
) -> None:
    (docs / "linked").symlink_to(outside / "sub", target_is_directory=True)
    assert problems_of(collect_docs(docs)) == [_refused("linked", outside / "sub")]
    # A folder the globs leave out is never looked at, so it is not refused either.
    assert collect_docs(docs, exclude=("linked",)).problems == []
    write_tree(docs, {".docs-mcp.json": '{"version": "1", "exclude": ["linked/**"]}'})
    assert collect_docs(docs).problems == []
    write_tree(docs, {".docs-mcp.json": '{"version": "1", "exclude": ["linked/*.md"]}'})
    assert len(collect_docs(docs).problems) == 1  # linked/x/y.md would still be indexed


def test_source_root_lets_symlinks_into_it_work(tmp_path: Path, docs: Path, outside: Path) -> None:
    (docs / "p.md").symlink_to(outside / "secret.md")
    (docs / "linked").symlink_to(outside / "sub", target_is_directory=True)
    collected = collect_docs(docs, source_roots=(outside,))
    assert collected.problems == []
    assert sorted(f.path for f in collected.corpus.files) == ["index.md", "linked/more.md", "p.md"]
    # A root elsewhere does not help.
    elsewhere = write_tree(tmp_path / "elsewhere", {"x.md": "# x\n"})
    assert len(collect_docs(docs, source_roots=(elsewhere,)).problems) == 2


def test_symlinks_inside_the_docs_keep_working(docs: Path) -> None:
    write_tree(docs, {"v2/guide.md": "# Guide\n\ntext\n", ".generated/api.md": "# API\n\nx\n"})
    (docs / "alias.md").symlink_to("v2/guide.md")
    (docs / "latest").symlink_to("v2", target_is_directory=True)  # already indexed as v2/
    (docs / "api").symlink_to(".generated", target_is_directory=True)  # hidden: only via api/
    collected = collect_docs(docs)
    assert collected.problems == []
    paths = sorted(f.path for f in collected.corpus.files)
    assert paths == ["alias.md", "api/api.md", "index.md", "v2/guide.md"]


def test_folder_symlink_loops_and_diamonds_end(docs: Path, tmp_path: Path) -> None:
    (docs / "self").symlink_to(".", target_is_directory=True)
    write_tree(docs, {"a/b/deep.md": "# Deep\n\nx\n"})
    (docs / "a" / "b" / "up").symlink_to("../..", target_is_directory=True)
    (docs / "x").symlink_to("y")  # a cycle of two dangling links
    (docs / "y").symlink_to("x")
    # A diamond of 2^30 paths through 30 levels: each real folder is walked once.
    chain = tmp_path / "chain"
    for level in range(30):
        write_tree(chain / str(level), {"page.md": f"# Level {level}\n\nx\n"})
        if level:
            for name in ("left", "right"):
                (chain / str(level - 1) / name).symlink_to(chain / str(level))
    (docs / "chain").symlink_to(chain / "0", target_is_directory=True)
    collected = collect_docs(docs, seconds=20, source_roots=(chain,))
    assert collected.problems == []
    paths = [f.path for f in collected.corpus.files]
    assert len(paths) == len(set(paths)) == 2 + 30
    assert "a/b/deep.md" in paths and "self/index.md" not in paths


def test_fifo_socket_and_device_are_skipped_with_a_warning(docs: Path) -> None:
    os.mkfifo(docs / "pipe.md")
    with socket.socket(socket.AF_UNIX) as sock, Warnings() as warnings:
        sock.bind(str(docs / "sock.md"))
        (docs / "null.md").symlink_to("/dev/null")
        collected = collect_docs(docs, source_roots=(Path("/dev"),))
    assert collected.problems == []
    assert [f.path for f in collected.corpus.files] == ["index.md"]
    assert sorted(warnings.messages) == [
        "null.md: skipped, it is a device (through a symlink)",
        "pipe.md: skipped, it is a named pipe (FIFO)",
        "sock.md: skipped, it is a socket",
    ]


def test_symlink_to_dev_zero_is_refused_not_read(docs: Path) -> None:
    (docs / "zero.md").symlink_to("/dev/zero")
    (docs / ".docs-mcp.json").symlink_to("/dev/zero")
    assert problems_of(collect_docs(docs)) == [
        _refused(".docs-mcp.json", Path("/dev/zero")),
        _refused("zero.md", Path("/dev/zero")),
    ]


def test_read_file_never_blocks_or_reads_past_its_limit(docs: Path, outside: Path) -> None:
    """The last guard, for a file replaced after the scan: checked again when opened."""
    roots = source_roots(docs)
    os.mkfifo(docs / "pipe.md")
    with pytest.raises(Refused, match=r"^a named pipe \(FIFO\); refused$"):
        within(5, lambda: read_file(docs, "pipe.md", roots, 100))
    (docs / "late.md").symlink_to(outside / "secret.md")
    with pytest.raises(Refused, match="outside the source roots"):
        read_file(docs, "late.md", roots, 100)
    write_tree(docs, {"big.md": "x" * 101})
    with pytest.raises(Refused, match=r"^is 101 bytes; at most 100 bytes are allowed"):
        read_file(docs, "big.md", roots, 100)
    assert read_file(docs, "index.md", roots, 100) == b"# Index\n\nHello.\n"


@pytest.mark.slow  # a fresh `python -m docsmcp.cli` (no fork)
def test_cli_build_with_a_fifo_ends_and_says_why(docs: Path, tmp_path: Path) -> None:
    """End to end in a child process with a hard timeout: a FIFO used to block forever."""
    os.mkfifo(docs / "pipe.md")
    out = tmp_path / "idx"
    proc = subprocess.run(
        [sys.executable, "-m", "docsmcp.cli", "build", "--docs-dir", docs, "--out", out, "-q"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "docsmcp: warning: pipe.md: skipped, it is a named pipe (FIFO)\n"


@pytest.mark.parametrize("command", ["validate", "build"])
def test_cli_source_root_flag(docs: Path, outside: Path, tmp_path: Path, command: str) -> None:
    (docs / "p.md").symlink_to(outside / "secret.md")
    out = tmp_path / "idx"
    extra = ("--out", out) if command == "build" else ()
    refused = run_docsmcp(command, "--docs-dir", docs, *extra, check=False)
    assert refused.returncode == 1 and not out.exists()
    assert refused.stderr.splitlines()[0] == _refused("p.md", outside / "secret.md")
    allowed = run_docsmcp(command, "--docs-dir", docs, "--source-root", outside, *extra)
    assert allowed.returncode == 0
    missing = run_docsmcp(
        command, "--docs-dir", docs, "--source-root", tmp_path / "no", *extra, check=False
    )
    assert missing.returncode == 2
    assert missing.stderr == f"docsmcp: error: --source-root {tmp_path / 'no'} is not a directory\n"


# --- property: whatever the tree, nothing outside the roots is read ---------------------------

_NAMES = ["a.md", "b.mdx", "c.txt", "d", "e", ".docs-mcp.json", ".hidden"]
_TARGETS = ["in", "out", "up", "self", "dangling", "fifo", "null", "sibling"]
_KINDS = ["file", "dir", "link", "fifo"]


@fuzz(0.2)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["", "d/", "e/", "d/e/"]),
            st.sampled_from(_NAMES),
            st.sampled_from(_KINDS),
            st.sampled_from(_TARGETS),
        ),
        max_size=12,
    )
)
def test_random_trees_never_leak_outside_the_roots(tmp_path_factory, entries) -> None:
    base = tmp_path_factory.mktemp("tree")
    docs, out = base / "docs", base / "out"
    write_tree(out, {"x.md": f"# X\n\n{SECRET}\n", "sub/y.md": f"# Y\n\n{SECRET}\n"})
    write_tree(docs, {"index.md": "# Index\n\ntext\n"})
    targets = {
        "in": docs,
        "out": out,
        "up": base,
        "self": Path("."),
        "dangling": docs / "nope",
        "null": Path("/dev/null"),
        "sibling": out / "x.md",
    }
    expected = set()  # the Problems a refused symlink must give
    for folder, name, kind, target in entries:
        path = docs / folder / name
        if path.parent.is_symlink() or not _mkdirs(path.parent) or os.path.lexists(path):
            continue
        if kind == "file":
            path.write_text(f"# {name}\n\ninside\n")
        elif kind == "dir":
            path.mkdir()
        elif kind == "fifo":
            os.mkfifo(path)
        elif target != "fifo":
            path.symlink_to(targets[target])
            expected |= _expected_refusal(docs, path)
    collected = collect_docs(docs, seconds=20)
    assert SECRET not in _text_of(collected)
    roots = source_roots(docs)
    for f in collected.corpus.files:
        real = Path(os.path.realpath(docs / f.path))
        assert any(real.is_relative_to(r) for r in roots), f.path
    assert expected <= set(problems_of(collected))


def _expected_refusal(docs: Path, link: Path) -> set[str]:
    """{the Problem of `link`} if it is a symlink the builder must refuse, else {}."""
    real = Path(os.path.realpath(link))
    if real.is_relative_to(docs.resolve()):
        return set()
    if real.is_dir():  # a folder: refused unless hidden
        refused = not link.name.startswith(".")
    else:  # a file: refused if it is one the builder would read
        refused = link.name in ("a.md", "b.mdx", ".docs-mcp.json")
    return {_refused(link.relative_to(docs).as_posix(), real)} if refused else set()


def _mkdirs(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        return False
    return folder.is_dir() and not folder.is_symlink()
