"""Usage errors of both command lines are one line naming the fix (issue 28): an option nobody
defined is named, with the closest one, instead of 16-21 lines of usage blaming what argparse
tripped over next (a missing --docs-dir, or the option's value as a command)."""

from __future__ import annotations

import pytest
from docsmcp.cli import main as docsmcp
from docsmcp_runtime.cli import main as runtime


def one_line_error(capsys: pytest.CaptureFixture[str], main, argv: list[str]) -> str:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    return err.rstrip("\n")


@pytest.mark.parametrize(
    ("main", "argv", "expected"),
    [
        (
            docsmcp,
            ["build", "--doc-dir", "./docs", "--out", "./idx"],
            "docsmcp build: error: unknown option --doc-dir; did you mean --docs-dir?",
        ),
        (
            docsmcp,
            ["eval", "--bundel", "./idx", "--cases", "c.jsonl"],
            "docsmcp eval: error: unknown option --bundel; did you mean --bundle?",
        ),
        (
            docsmcp,
            ["build", "--docs-dir=./docs", "--out", "./idx", "--zzz=1"],
            "docsmcp build: error: unknown option --zzz",
        ),
        (
            runtime,
            ["--bundel", "./idx"],
            "docsmcp-runtime: error: unknown option --bundel; did you mean --bundle?",
        ),
        (
            runtime,
            ["--bundle", "./idx", "--transprt", "http"],
            "docsmcp-runtime: error: unknown option --transprt; did you mean --transport?",
        ),
        # a query that names a flag (pip's `--no-deps`): how to search for it
        (
            runtime,
            ["--bundle", "./idx", "search", "--no-deps"],
            "docsmcp-runtime search: error: unknown option --no-deps; to search for it, put -- "
            "before the query: -- '--no-deps'",
        ),
        # no unknown option: argparse's own message, without the usage block
        (
            docsmcp,
            ["build", "--docs-dir", "./docs"],
            "docsmcp build: error: the following arguments are required: --out",
        ),
        (
            runtime,
            ["toc"],
            "docsmcp-runtime: error: the following arguments are required: --bundle",
        ),
    ],
)
def test_usage_errors_are_one_line(capsys, main, argv: list[str], expected: str) -> None:
    assert one_line_error(capsys, main, argv) == expected


def test_what_argparse_accepts_is_not_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    # An unambiguous prefix (--cas), a negative number as a value, and taxonomy flags after a
    # command (search's own) are no unknown options: the real error is reported.
    err = one_line_error(capsys, docsmcp, ["eval", "--cas", "c.jsonl", "--k", "-1"])
    assert err == "docsmcp eval: error: the following arguments are required: --bundle"
    err = one_line_error(capsys, runtime, ["search", "paginate", "--language", "python"])
    assert err == "docsmcp-runtime: error: the following arguments are required: --bundle"


def test_playground_port_out_of_range_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    # (it bound a random port, 34463, and said nothing)
    err = one_line_error(capsys, runtime, ["--bundle", "./idx", "playground", "--port", "99999"])
    assert err == (
        "docsmcp-runtime playground: error: argument --port: must be between 0 and 65535, got 99999"
    )
