"""Docusaurus `sidebars.js`/`.ts` read as data, never run (sources/jsliteral.py): the exported
object literal when it holds only data; None as soon as it holds code. Checked against JSON
itself (every value written as JavaScript reads back equal) and on random text (never an
exception, never a hang)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from conftest import FUZZ
from docsmcp.sources.jsliteral import MAX_DEPTH, exported_literal
from hypothesis import given
from hypothesis import strategies as st

DOCUSAURUS_JS = """// @ts-check
/** @type {import('@docusaurus/plugin-content-docs').SidebarsConfig} */
const sidebars = {
  tutorialSidebar: [
    'intro',
    {
      type: 'category',
      label: "Tutorial - Basics",  // a comment with ] and }
      items: ['tutorial-basics/create-a-document', `tutorial-basics/deploy`],
    },
  ],
};

module.exports = sidebars;
"""
DOCUSAURUS_TS = """import type {SidebarsConfig} from '@docusaurus/plugin-content-docs';

const sidebars: SidebarsConfig = {
  api: ["a/b", /* inline */ 'it\\'s'],
};

export default sidebars;
"""


def test_the_sidebars_docusaurus_writes_are_read() -> None:
    assert exported_literal(DOCUSAURUS_JS) == {
        "tutorialSidebar": [
            "intro",
            {
                "type": "category",
                "label": "Tutorial - Basics",
                "items": ["tutorial-basics/create-a-document", "tutorial-basics/deploy"],
            },
        ]
    }
    assert exported_literal(DOCUSAURUS_TS) == {"api": ["a/b", "it's"]}
    assert exported_literal("export default [1, -2.5e3, true, null,]") == [1, -2500.0, True, None]


@pytest.mark.parametrize(
    "text",
    [
        "module.exports = { docs: require('./generated.js') };",  # a call
        "module.exports = { docs: [...items] };",  # a spread
        "module.exports = { docs: items };",  # a variable
        "module.exports = { [key]: ['a'] };",  # a computed key
        "module.exports = { a: [`x${y}`] };",  # a template with an expression
        "module.exports = { a: ['x'] + more };",  # an operator
        "module.exports = { a: [1, 2",  # unclosed
        "module.exports = sidebars();",  # no literal at all
        "console.log('no export');",
        "module.exports = " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),  # too deep
    ],
)
def test_code_gives_nothing(text: str) -> None:
    assert exported_literal(text) is None


def test_a_large_literal_reads_in_linear_time() -> None:
    big = "module.exports = {" + "".join(f"k{i}: 'v{i}', " for i in range(100_000)) + "}"
    started = time.monotonic()
    assert len(exported_literal(big) or {}) == 100_000
    assert exported_literal("module.exports = " + "/*" * 200_000) is None
    assert time.monotonic() - started < 10


_KEYS = st.text(st.characters(categories=["Lu", "Ll", "Nd"]), min_size=1, max_size=8).filter(
    lambda k: not k[0].isdigit()
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=20,
)


def _as_js(value: Any) -> str:
    """`value` written as a JavaScript literal: bare keys, single quotes, trailing commas."""
    if isinstance(value, dict):
        return "{" + "".join(f"{k}: {_as_js(v)}, " for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + "".join(f"{_as_js(v)},\n" for v in value) + "]"
    if isinstance(value, str):
        return "'" + json.dumps(value)[1:-1].replace("'", "\\'").replace('\\"', '"') + "'"
    return json.dumps(value)


@FUZZ
@given(st.dictionaries(_KEYS, _JSON, max_size=4))
def test_data_written_as_javascript_reads_back(value: dict) -> None:
    text = f"/* sidebars */\nconst sidebars = {_as_js(value)};\nexport default sidebars;\n"
    assert exported_literal(text) == value


@FUZZ
@given(st.text(max_size=300))
def test_random_text_never_raises(text: str) -> None:
    exported_literal(text)
    exported_literal("module.exports = {" + text)
