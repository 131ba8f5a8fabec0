"""The README's option tables are generated from the argparse parsers (scripts/cli_reference.py)."""

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


def test_readme_cli_reference_is_up_to_date():
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


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


def test_check_names_the_stale_section(cli_reference, tmp_path, capsys):
    readme = tmp_path / "README.md"
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    regions = _regions(text)
    assert len(regions) >= 2
    spec, start, end = regions[0]
    row = next(line for line in text[start:end].splitlines() if line.startswith("| `-"))
    edited = row.split(" | ")[0] + " | hand-edited meaning |"
    readme.write_text(text[:start] + text[start:end].replace(row, edited) + text[end:], "utf-8")

    assert cli_reference.main(["--check", "--readme", str(readme)]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert f"out of date: {spec} (run" in err  # the changed section, and only that one

    # Without --check the region is rewritten, and the copy is up to date again.
    assert cli_reference.main(["--readme", str(readme)]) == 0
    assert readme.read_text(encoding="utf-8") == text
    assert cli_reference.main(["--check", "--readme", str(readme)]) == 0


def test_check_reports_unknown_and_missing_sections(cli_reference, tmp_path, capsys):
    readme = tmp_path / "README.md"
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    spec, start, end = next(r for r in _regions(text) if ";" not in r[0] and "[" not in r[0])
    marker = f"<!-- cli-reference: {spec} -->"
    readme.write_text(text.replace(marker, marker.replace(spec, spec + "x")), "utf-8")
    assert cli_reference.main(["--check", "--readme", str(readme)]) == 2
    assert f"no command '{spec}x'" in capsys.readouterr().err

    readme.write_text(text[:start] + text[end:], "utf-8")
    assert cli_reference.main(["--check", "--readme", str(readme)]) == 1
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
