"""The CLI option tables of the docs (docs/cli.md; any region in README.md or docs/*.md) are
generated from the argparse parsers (scripts/cli_reference.py)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "cli_reference.py"


@pytest.fixture(scope="module")
def cli_reference():
    spec = importlib.util.spec_from_file_location("cli_reference", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


def test_cli_reference_is_up_to_date():
    """Every region of README.md and docs/*.md (today all in docs/cli.md) is current."""
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_the_files_are_the_readme_and_the_docs_pages(cli_reference):
    files = cli_reference.doc_files()
    assert files[0] == ROOT / "README.md"
    assert ROOT / "docs" / "cli.md" in files
    assert all(f.suffix == ".md" and f.parent in (ROOT, ROOT / "docs") for f in files)


def _regions(text: str) -> list[tuple[str, int, int]]:
    """(spec, start, end) of each generated region, from its opening marker to its closing one."""
    return [
        (m["spec"], m.start(), m.end())
        for m in re.finditer(
            r"^<!-- cli-reference: (?P<spec>.+?) -->$.*?^<!-- /cli-reference -->$",
            text,
            re.S | re.M,
        )
    ]


def _copies(tmp_path: Path, cli_reference) -> list[Path]:
    """README.md and docs/*.md copied under tmp_path, as the script's default files are."""
    copies = []
    for source in cli_reference.doc_files():
        copy = tmp_path / source.relative_to(ROOT)
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
        copies.append(copy)
    return copies


def _with_regions(files: list[Path]) -> Path:
    (page,) = [f for f in files if _regions(f.read_text(encoding="utf-8"))]
    return page


def test_check_names_the_stale_file_and_section(cli_reference, tmp_path, capsys):
    files = _copies(tmp_path, cli_reference)
    page = _with_regions(files)
    text = page.read_text(encoding="utf-8")
    regions = _regions(text)
    assert len(regions) >= 2
    spec, start, end = regions[0]
    row = next(line for line in text[start:end].splitlines() if line.startswith("| `-"))
    edited = row.split(" | ")[0] + " | hand-edited meaning |"
    page.write_text(text[:start] + text[start:end].replace(row, edited) + text[end:], "utf-8")

    assert cli_reference.main(["--check", *map(str, files)]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert err.startswith(f"{page}: CLI reference out of date: {spec} (run")  # only that one

    # Without --check the region is rewritten, and the copy is up to date again.
    assert cli_reference.main(list(map(str, files))) == 0
    assert page.read_text(encoding="utf-8") == text
    assert cli_reference.main(["--check", *map(str, files)]) == 0


def test_regions_may_live_in_any_of_the_files(cli_reference, tmp_path, capsys):
    """A region moved from the docs page into README.md still counts, and is checked there."""
    files = _copies(tmp_path, cli_reference)
    readme, page = files[0], _with_regions(files)
    text = page.read_text(encoding="utf-8")
    spec, start, end = _regions(text)[-1]
    page.write_text(text[:start] + text[end:], "utf-8")
    region = text[start:end]
    readme.write_text(readme.read_text(encoding="utf-8") + "\n" + region + "\n", "utf-8")
    assert cli_reference.main(["--check", *map(str, files)]) == 0
    stale = region.replace("| `-", "| `-x", 1)
    readme.write_text(readme.read_text(encoding="utf-8").replace(region, stale), "utf-8")
    assert cli_reference.main(["--check", *map(str, files)]) == 1
    assert capsys.readouterr().err.startswith(f"{readme}: CLI reference out of date: {spec}")


def test_check_reports_unknown_and_missing_sections(cli_reference, tmp_path, capsys):
    files = _copies(tmp_path, cli_reference)
    page = _with_regions(files)
    text = page.read_text(encoding="utf-8")
    spec, start, end = next(r for r in _regions(text) if ";" not in r[0] and "[" not in r[0])
    marker = f"<!-- cli-reference: {spec} -->"
    page.write_text(text.replace(marker, marker.replace(spec, spec + "x")), "utf-8")
    assert cli_reference.main(["--check", *map(str, files)]) == 2
    assert f"no command '{spec}x'" in capsys.readouterr().err

    page.write_text(text[:start] + text[end:], "utf-8")
    assert cli_reference.main(["--check", *map(str, files)]) == 1
    assert f"no cli-reference region for: {spec}" in capsys.readouterr().err


def test_rendering(cli_reference):
    import argparse

    p = argparse.ArgumentParser(prog="tool")
    p.add_argument("target", metavar="DIR|FILE", help="what to read")
    p.add_argument("--mode", choices=["a", "b"], default="a", help="mode (%(choices)s)")
    p.add_argument("-n", "--count", type=int, default=3, help="how many, e.g. '*'")
    p.add_argument("--tag", action="append", default=[], help="see --mode and $TOOL_HOME")
    p.add_argument("--out", required=True)
    command = next(cli_reference.walk(p))
    assert cli_reference.render_table(command, None).splitlines()[2:] == [
        "| option | meaning |",
        "|---|---|",
        "| `DIR\\|FILE` | what to read |",
        "| `--mode {a,b}` | mode (a, b) (default: a) |",
        "| `-n`, `--count COUNT` | how many, e.g. `'*'` (default: 3) |",
        "| `--tag TAG` | see `--mode` and `$TOOL_HOME` (repeatable) |",
        "| `--out OUT` (required) |  |",
    ]
