"""Issue 8, item 9 (builder): no input makes `docsmcp validate` or `build` print a traceback.

Bounded Hypothesis fuzzing of everything the builder parses (manifests: random JSON trees and
mutations of a real one; YAML frontmatter: random YAML-ish text, deep nesting, anchors and
aliases, "billion laughs"; inline chunking hints; markdown bodies) through the real collect
step, in-process: the result is a list of one-line Problems or a clean collect, never an
exception, a hang or a crash. The inputs the issue found (100k `[`, a 5,000-digit integer,
50,000 levels of YAML that segfaulted libyaml, deep JSON in a hint, a file name that is not
UTF-8) go end to end through the CLI: one line per problem, exit code 1, `--out` untouched.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import yaml
from conftest import EXAMPLE_DOCS, run_docsmcp
from docsmcp.common import limits
from docsmcp.sources.frontmatter import _LOADER, _flat, _may_be_big, _too_big, split_frontmatter
from hostile import collect_docs, fuzz, problems_of, write_tree
from hypothesis import given
from hypothesis import strategies as st

REAL_MANIFEST = (EXAMPLE_DOCS / ".docs-mcp.json").read_bytes()
PAGES = {
    "a.md": "---\ntitle: A\n---\n# A\n\ntext\n",
    "guides/b.md": "# B\n\n## Part\n\ntext\n",
    "sub/c.mdx": "import X from 'y'\n\n# C\n\n:::tip Hi\ntext\n:::\n",
}


def _collect_ok(docs: Path) -> list[str]:
    """collect on `docs`: it must return, within the budget, problems of one line each."""
    return problems_of(collect_docs(docs, seconds=20))


# --- manifests --------------------------------------------------------------------------------

_WORDS = [
    "version", "1", "strategy", "chunk_by", "h2", "file", "max_chunk_size", "min_chunk_size",
    "metadata", "language", "taxonomy", "vector_collapse", "description", "auto_include",
    "properties", "mcp_resource", "overrides", "pattern", "include", "exclude",
    "mcpServerInstructions", "**/*.md", "guides/**", "{a,b}", "[z-a]", "{" * 3, "", "\x00",
]  # fmt: skip
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(_WORDS)
    | st.text(max_size=8)
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(_WORDS) | st.text(max_size=4), inner, max_size=5)
    ),
    max_leaves=25,
)


def _deep_json(depth: int, kind: str) -> str:
    if kind == "[":
        return "[" * depth + "]" * depth
    return '{"a": ' * depth + "1" + "}" * depth


@pytest.mark.slow  # fuzz
@fuzz(0.5)
@given(_JSON)
def test_random_manifest_trees_give_problems_not_exceptions(tmp_path: Path, tree) -> None:
    write_tree(tmp_path, PAGES)
    write_tree(tmp_path, {".docs-mcp.json": json.dumps(tree), "guides/.docs-mcp.json": "{}"})
    _collect_ok(tmp_path)


_DAMAGE = [b"[" * 200, b"{", b"}", b'"', b"\\", b"9" * 120, b"\xff", b"\x00", b"NaN", b"1e999",
           b"-", b",", b":", b"\xef\xbb\xbf", b"[z-a]", b"{a,b}" * 8, b"\n"]  # fmt: skip


@pytest.mark.slow  # fuzz
@fuzz(0.5)
@given(
    st.lists(
        st.tuples(st.integers(0, len(REAL_MANIFEST)), st.sampled_from(["ins", "del", "sub"])),
        min_size=1,
        max_size=4,
    ),
    st.lists(st.sampled_from(_DAMAGE), min_size=4, max_size=4),
)
def test_mutated_real_manifest_gives_problems_not_exceptions(tmp_path: Path, edits, payloads):
    data = bytearray(REAL_MANIFEST)
    for (at, op), payload in zip(edits, payloads, strict=False):
        at = min(at, len(data))
        if op == "ins":
            data[at:at] = payload
        elif op == "del":
            del data[at : at + len(payload)]
        else:
            data[at : at + len(payload)] = payload
    write_tree(tmp_path, {**PAGES, ".docs-mcp.json": bytes(data)})
    _collect_ok(tmp_path)


@pytest.mark.parametrize("depth", [limits.MAX_JSON_DEPTH, limits.MAX_JSON_DEPTH + 1, 100_000])
@pytest.mark.parametrize("kind", ["[", "{"])
def test_deep_manifest_is_one_problem_at_its_line(tmp_path: Path, depth: int, kind: str) -> None:
    write_tree(tmp_path, {"a.md": "# A\n", ".docs-mcp.json": "\n" + _deep_json(depth, kind)})
    problems = _collect_ok(tmp_path)
    if depth <= limits.MAX_JSON_DEPTH:  # parsed; the schema says what is wrong with it
        assert problems and all(":2:" not in p for p in problems)
    else:
        assert problems == [
            f".docs-mcp.json:2: nested deeper than {limits.MAX_JSON_DEPTH} levels of arrays "
            "and objects"
        ]


def test_long_integer_in_a_manifest_is_one_problem(tmp_path: Path) -> None:
    digits = "9" * (limits.MAX_JSON_INT_DIGITS + 1)
    manifest = f'{{"version": "1",\n "strategy": {{"chunk_by": "h2", "max_chunk_size": {digits}}}}}'
    write_tree(tmp_path, {"a.md": "# A\n", ".docs-mcp.json": manifest})
    assert _collect_ok(tmp_path) == [
        f".docs-mcp.json:2: an integer of more than {limits.MAX_JSON_INT_DIGITS} digits"
    ]
    ok = manifest.replace(digits, "9" * limits.MAX_JSON_INT_DIGITS)
    write_tree(tmp_path, {".docs-mcp.json": ok})
    assert _collect_ok(tmp_path) == []


# --- frontmatter -------------------------------------------------------------------------------

_YAML = [
    "title", "metadata", "mcp_metadata", "mcp_strategy", "chunk_by", "mcp_chunking_hint", "k",
    ": ", ":", " ", "\n", "  ", "- ", "[", "]", "{", "}", ", ", "&a ", "*a", "&b ", "*b",
    "!!set ", "!!int ", "!!binary ", "!!timestamp ", "!!python/object:os.system ", "? ", "'",
    '"', "|\n", ">\n", "# c", "2024-13-45", "2024-01-01", "9" * 5000, "h2", "null", "~", "true",
    "1e400", ".nan", "\t", "%YAML 1.1\n", "<<: *a", "\\", "\x00", "\ufeff", "1:2:3", "0x1F",
]  # fmt: skip


def _page(yaml_text: str) -> str:
    return f"---\n{yaml_text}\n---\n# Page\n\ntext\n"


@pytest.mark.slow  # fuzz
@fuzz(1)
@given(st.lists(st.sampled_from(_YAML), max_size=30).map("".join))
def test_random_frontmatter_gives_problems_not_exceptions(tmp_path: Path, yaml_text: str):
    write_tree(tmp_path, {"a.md": _page(yaml_text)})
    _collect_ok(tmp_path)


_TOO_DEEP = rf"nests deeper than {limits.MAX_YAML_DEPTH} levels|exceeded maximum nesting depth"
_NESTING = {
    "flow sequences": lambda n: "x: " + "[" * n + "]" * n,
    "flow mappings": lambda n: "x: " + "{a: " * n + "b" + "}" * n,
    "block sequences": lambda n: "x:\n" + "- " * n + "a",
    "block mappings": lambda n: "".join(" " * i + f"k{i}:\n" for i in range(n)) + " " * n + "v",
    "explicit keys": lambda n: "? " * n + "a",
    "mixed": lambda n: "x: " + "[{a: " * (n // 2) + "b" + "}]" * (n // 2),
}


@pytest.mark.parametrize("shape", _NESTING)
@pytest.mark.parametrize("depth", [limits.MAX_YAML_DEPTH // 2, limits.MAX_YAML_DEPTH * 2, 50_000])
def test_deep_frontmatter_is_refused_before_libyaml_recurses(
    tmp_path: Path, shape: str, depth: int
) -> None:
    """50,000 levels segfaulted the builder inside libyaml's composer: no exception to catch,
    the process died. Nesting is measured on the event stream first."""
    if shape == "block mappings" and depth > 1000:
        depth = 1000  # quadratic text (indentation); 1,000 levels already show the guard
    write_tree(tmp_path, {"a.md": _page(_NESTING[shape](depth))})
    problems = _collect_ok(tmp_path)
    # Ours, or (newer PyYAML, 6.0.4 here, stops ~1,000 levels of flow collections itself, before its
    # parser yields our 65th event) libyaml's own: either way one line, and the process lives.
    deep = [p for p in problems if re.search(_TOO_DEEP, p)]
    assert bool(deep) is (depth > limits.MAX_YAML_DEPTH), problems
    assert all(re.fullmatch(r"a\.md:\d+: .*", p) for p in problems)


def test_yaml_depth_limit_is_inclusive(tmp_path: Path) -> None:
    """The root mapping is one level, each `[` one more."""
    write_tree(tmp_path, {"a.md": _page(_NESTING["flow sequences"](limits.MAX_YAML_DEPTH - 1))})
    assert _collect_ok(tmp_path) == []
    write_tree(tmp_path, {"a.md": _page(_NESTING["flow sequences"](limits.MAX_YAML_DEPTH))})
    assert _collect_ok(tmp_path) == [
        f"a.md:2: YAML frontmatter nests deeper than {limits.MAX_YAML_DEPTH} levels"
    ]


def _laughs(levels: int, fanout: int) -> str:
    """YAML whose level i lists level i-1 `fanout` times, used as the chunking hint."""
    lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels + 1):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * fanout) + "]")
    return "\n".join([*lines, f"mcp_chunking_hint: *l{levels}"])


@pytest.mark.parametrize("levels, fanout", [(8, 10), (30, 2), (3, 10)])
def test_yaml_alias_expansion_is_bounded(tmp_path: Path, levels: int, fanout: int) -> None:
    """'Billion laughs': each level refers `fanout` times to the previous one. Anything that
    walks the loaded data (schema checks, a value quoted in a message) would take forever."""
    yaml_text = _laughs(levels, fanout) + f"\nmcp_strategy: {{chunk_by: *l{levels}}}"
    write_tree(tmp_path, {"a.md": _page(yaml_text)})
    problems = _collect_ok(tmp_path)
    if fanout ** (levels + 1) > limits.MAX_YAML_NODES or levels + 2 > limits.MAX_YAML_DEPTH:
        assert problems and "YAML frontmatter" in problems[0]
    else:
        assert problems and all(len(p) < 400 for p in problems)  # quoted values are clipped


@pytest.mark.parametrize(
    "yaml_text",
    [
        "a: &a [*a]",
        "a: &a {b: *a}\nmetadata: *a",
        "title: &t [1, *t]",
        "d: 2024-13-45",
        "n: " + "9" * 5000,
        "n: !!int ''",
        "x: !!binary 'not base64!'",
        "x: !!python/object:os.system ls",
        "? [a, b]\n: c",
    ],
)
def test_odd_frontmatter_is_one_problem(tmp_path: Path, yaml_text: str) -> None:
    write_tree(tmp_path, {"a.md": _page(yaml_text)})
    problems = _collect_ok(tmp_path)
    assert len(problems) == 1 and problems[0].startswith("a.md:")


# --- inline hints and markdown bodies ----------------------------------------------------------

_HINT_PAYLOADS = st.one_of(
    _JSON.map(json.dumps),
    st.text(max_size=20),
    st.sampled_from(["[" * 3000, '{"chunk_by": ' * 2000, "9" * 5000, '{"chunk_by": "h3"}']),
)


@pytest.mark.slow  # fuzz
@fuzz(0.5)
@given(st.lists(st.tuples(_HINT_PAYLOADS, st.booleans()), max_size=4))
def test_random_inline_hints_give_problems_not_exceptions(tmp_path: Path, hints) -> None:
    body = "".join(
        f"text\n<!-- mcp_chunking_hint: {payload}{' -->' if closed else ''}\n"
        for payload, closed in hints
    )
    write_tree(tmp_path, {"a.md": "# Page\n\n" + body + "\n## End\n\ntext\n"})
    _collect_ok(tmp_path)


def test_deep_json_in_an_inline_hint_is_one_problem(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.md": "# A\n\n<!-- mcp_chunking_hint: " + "[" * 100_000 + " -->\n"})
    assert _collect_ok(tmp_path) == [
        f"a.md:3: inline mcp_chunking_hint: nested deeper than {limits.MAX_JSON_DEPTH} levels of "
        "arrays and objects"
    ]


_MARKDOWN = [
    "# A", "## B", "### C", "#### D", "text", "", "", "- item", "  - nested", "1. one", "> q",
    "| a | b |", "|---|---|", "| 1 | 2 |", "```", "~~~", "    code", "<div>", "</div>",
    "<!-- c -->", "<!-- mcp_chunking_hint: {\"chunk_by\": \"h3\"} -->", "<!-- mcp_chunking_hint:",
    "-->", ":::tip T", ":::", "import x from 'y'", "export const a = {", "}", "---", "***",
    "[ref]: http://x", "<<<<", "*a* `b` [c](d)", "\\", "\t", "\x00", "\u2028", "#" * 7 + " x",
]  # fmt: skip


@pytest.mark.slow  # fuzz, ~1 s
@fuzz(1)
@given(
    st.lists(st.sampled_from(_MARKDOWN), max_size=40).map("\n".join),
    st.sampled_from(["a.md", "a.mdx"]),
)
def test_random_markdown_bodies_collect(tmp_path: Path, body: str, name: str) -> None:
    for old in ("a.md", "a.mdx"):
        (tmp_path / old).unlink(missing_ok=True)
    write_tree(tmp_path, {name: body})
    _collect_ok(tmp_path)


# --- end to end: one line per problem ------------------------------------------------------------

_CASES = {
    "manifest of 100k '['": {"a.md": "# A\n", ".docs-mcp.json": "[" * 100_000},
    "5,000-digit integer": {
        "a.md": "# A\n",
        ".docs-mcp.json": '{"version": "1", "strategy": {"chunk_by": "h2", "max_chunk_size": '
        + "9" * 5000
        + "}}",
    },
    "deep JSON in a hint": {"a.md": "# A\n<!-- mcp_chunking_hint: " + "[" * 100_000 + " -->\n"},
    "frontmatter 50,000 levels deep": {"a.md": _page("x: " + "[" * 50_000 + "]" * 50_000)},
    "billion laughs": {"a.md": _page(_laughs(8, 10))},
}


@pytest.mark.parametrize("case", _CASES)
@pytest.mark.parametrize("command", ["validate", "build"])
def test_cli_reports_hostile_input_in_one_line(tmp_path: Path, case: str, command: str) -> None:
    docs = write_tree(tmp_path / "docs", _CASES[case])
    out = tmp_path / "idx"
    extra = ("--out", out) if command == "build" else ()
    proc = run_docsmcp(command, "--docs-dir", docs, *extra, check=False)
    assert proc.returncode == 1, proc.stderr
    *problems, summary = proc.stderr.splitlines()
    assert len(problems) == 1 and re.fullmatch(r"(a\.md|\.docs-mcp\.json):\d+: \S.*", problems[0])
    assert summary.startswith("docsmcp: 1 problem(s) found;") and "Traceback" not in proc.stderr
    assert not out.exists()


def test_cli_refuses_a_file_name_that_is_not_utf8(tmp_path: Path) -> None:
    """pyarrow used to fail with a UnicodeEncodeError traceback writing the chunk table."""
    docs = write_tree(tmp_path / "docs", {"ok.md": "# OK\n\ntext\n"})
    with open(os.fsencode(docs) + b"/caf\xe9.md", "wb") as f:
        f.write(b"# Cafe\n\ntext\n")
    out = tmp_path / "idx"
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", out, check=False)
    assert proc.returncode == 1 and not out.exists()
    assert proc.stderr.splitlines() == [
        "caf\\xe9.md: file name is not valid UTF-8; rename it (chunk ids are UTF-8 text)",
        "docsmcp: 1 problem(s) found; nothing was written",
    ]


def _values(data: object) -> int:
    """Values of loaded YAML counted as a tree (what `_too_big` counts without aliases)."""
    if isinstance(data, dict):
        return 1 + sum(_values(k) + _values(v) for k, v in data.items())
    if isinstance(data, (list, set)):
        return 1 + sum(_values(v) for v in data)
    return 1


_YAML_PARTS = ["-", " ", "\n", "? ", ":", ": ", "[", "]", "{", "}", ",", "a", "&x ", "!!set ", "''"]


@fuzz(1)
@given(st.lists(st.sampled_from(_YAML_PARTS), max_size=40).map("".join))
def test_yaml_without_aliases_has_at_most_two_values_a_character(yaml_text: str) -> None:
    """The premise of frontmatter._may_be_big: YAML without `*` loads into a tree of at most
    2·len + 1 values, so only text with an alias or over MAX_YAML_NODES / 2 characters needs
    the graph walk."""
    try:
        data = yaml.load(yaml_text, Loader=_LOADER)
    except (yaml.YAMLError, ValueError, TypeError):
        return
    assert _values(data) <= 2 * len(yaml_text) + 1
    if not _may_be_big(yaml_text):  # the walk skipped: it would have found nothing
        assert _too_big(data) is None


# Flat frontmatter read without PyYAML (frontmatter._flat): keys, separators and values that
# PyYAML reads in every way (strings, booleans, nulls, numbers, dates, indicators, quotes,
# comments, characters that break lines or are not printable), items at several indentations.
_FLAT_KEYS = ["title", "a.b", "x-y", "_k", "on", "y", "Null", "1", "<<", "key ", "k#"]
_FLAT_WORDS = [
    "yes", "No", "~", "null", "1:30", "0x1F", "017", "1_000", ".inf", "-.5", "1e5", "2021-01-01",
    "2021-13-45", "=", "<<", "'a''b'", "'a'b'", '"a b"', '"a\\"b"', "C#", "a #b", "a: b", "a:",
    "http://x", "[a]", "{a: 1}", "&x a", "*x", "!!int 1", "|", ">", "@a", "`a`", "%a", "- a",
    "?", "a, b", "-a", "9" * 5000,
]  # fmt: skip
_FLAT_CHARS = st.sampled_from(list("aZ0 :#-'\"\\,?[]{}&*!|>%@`.\t\r\x85\u2028\ufeff\xa0é\x00"))
_FLAT_VALUES = st.one_of(
    st.sampled_from(_FLAT_WORDS), st.lists(_FLAT_CHARS, max_size=8).map("".join)
)
_FLAT_LINES = st.one_of(
    st.tuples(
        st.sampled_from(_FLAT_KEYS), st.sampled_from([": ", ":", ":  ", ":\t"]), _FLAT_VALUES
    ).map("".join),
    st.tuples(st.sampled_from(["- ", " - ", "  - ", "-  ", "-"]), _FLAT_VALUES).map("".join),
    st.sampled_from(["", "# note", "  # note", " ", "title: a\n  more"]),
)


def _typed(value: object) -> object:
    """`value` with every scalar paired with its type (True == 1 in Python, not in YAML)."""
    if isinstance(value, dict):
        return {_typed(k): _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return type(value), value


@fuzz(1)
@given(st.lists(_FLAT_LINES, max_size=8).map("\n".join))
def test_flat_frontmatter_reads_as_pyyaml_does(yaml_text: str) -> None:
    """What `_flat` reads without PyYAML is what PyYAML's loader gives, types included; text
    PyYAML refuses is never read."""
    flat = _flat(yaml_text)
    if flat is None:
        return
    assert _typed(yaml.load(yaml_text, Loader=_LOADER)) == _typed(flat)


@pytest.mark.parametrize(
    "yaml_text",
    [
        "title: Composition swapchain\ndescription: A glossary, of terms.\nms.date: 09/10/2021",
        "UID: NF:a.B::C\nprerelease: false\nreq.dll: \napi_type:\n - COM\napi_name:\n - B::C",
        "title: 'It''s here'\nsidebar_position: 3\ndescription: \"C# and C++\"\n# a comment",
        "id: intro\nslug: /\nkeywords:\n  - sdk\n  - quick start\ndraft: true\nweight: 1.5",
    ],
)  # fmt: skip
def test_common_frontmatter_takes_the_flat_path(yaml_text: str) -> None:
    """Frontmatter as MS Learn, Docusaurus and Hugo sites write it is read without PyYAML (the
    speed-up is not lost to a too-strict rule), to what PyYAML gives."""
    flat = _flat(yaml_text)
    assert flat is not None
    assert _typed(flat) == _typed(yaml.load(yaml_text, Loader=_LOADER))


def test_flat_frontmatter_keeps_the_value_limit() -> None:
    """Flat frontmatter read without PyYAML meets the same MAX_YAML_NODES limit: one problem,
    no data, as PyYAML's path gives."""
    many = "tags:\n" + "- a\n" * (limits.MAX_YAML_NODES + 1) + "title: x"
    assert _flat(many) is not None  # the flat path, not PyYAML's
    found = split_frontmatter(f"---\n{many}\n---\n# Page\n")
    assert found.data == {}
    assert [m for _, m in found.problems] == [
        f"YAML frontmatter has more than {limits.MAX_YAML_NODES} values (aliases counted in full)"
    ]
    few = "tags:\n" + "- a\n" * 10 + "title: x"
    kept = split_frontmatter(f"---\n{few}\n---\n# Page\n")
    assert kept.data == {"tags": ["a"] * 10, "title": "x"} and not kept.problems


def test_a_huge_yaml_integer_names_the_fix_not_python() -> None:
    """(the message was "... use sys.set_int_max_str_digits() to increase the limit")"""
    found = split_frontmatter("---\ntitle: x\nweight: " + "9" * 5000 + "\n---\n# Page\n")
    assert found.data == {}
    assert [m for _, m in found.problems] == [
        "invalid YAML frontmatter: an integer of 5,000 digits (at most 4,300); quote it to keep "
        "it as text"
    ]


_DEEPER = f"TOML frontmatter nests deeper than {limits.MAX_YAML_DEPTH} levels"
_MORE = f"TOML frontmatter has more than {limits.MAX_YAML_NODES} values"


@pytest.mark.parametrize(
    ("toml", "problem"),
    [
        ("x = " + "[" * 5000 + "]" * 5000, "a.md:1: TOML frontmatter nests too deep"),
        ("x = " + "[" * 300 + "]" * 300, f"a.md:1: {_DEEPER}"),
        ("x = [" + ", ".join(["1"] * (limits.MAX_YAML_NODES + 1)) + "]", f"a.md:1: {_MORE}"),
        ("title = ", "a.md:1: invalid TOML frontmatter: Invalid value (at end of document)"),
        ("a = 1\ntitle = \nb = 2", "a.md:3: invalid TOML frontmatter: Invalid value"),
    ],
)
def test_hostile_toml_frontmatter_is_one_problem(tmp_path: Path, toml: str, problem: str):
    """TOML front matter (`+++`, Hugo and Zola) is held to the YAML block's limits: one line
    naming the page and line, no traceback, nothing written."""
    write_tree(tmp_path, {"a.md": f"+++\n{toml}\n+++\n# Page\n\ntext\n"})
    assert _collect_ok(tmp_path) == [problem]
