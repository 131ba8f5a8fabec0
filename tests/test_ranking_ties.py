"""Rows of equal full-text score: shorter headings first, then row order (search/selection.py,
engine.Searcher.heading_lengths). Impact codes give one code to impacts about 1 % apart, so
shadcn's Alert Dialog and Dialog tied for "dialog" and path order put Alert Dialog first."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from conftest import build_bundle
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.search.engine import Searcher
from docsmcp_runtime.search.selection import MAX_TIED, topk
from hypothesis import given, settings
from hypothesis import strategies as st

USAGE = "## Usage\n\nOpen it from a trigger button, then close it.\n"


def test_equal_scores_rank_the_shorter_title_first(tmp_path: Path) -> None:
    docs = tmp_path / "docs" / "components"
    docs.mkdir(parents=True)
    # The same section on two pages of shadcn's shape whose every field but the title's
    # characters is alike: equal scores for "trigger button"; row (path) order puts Dialog
    # first, the tie-break Sheet, the shorter title.
    (docs / "dialog.mdx").write_text(f"# Dialog\n\n{USAGE}", encoding="utf-8")
    (docs / "sheet.mdx").write_text(f"# Sheet\n\n{USAGE}", encoding="utf-8")
    bundle = open_bundle(build_bundle(tmp_path / "docs", tmp_path / "idx"))
    page = Searcher(bundle).search("trigger button", {}, 0, 10)
    assert page.scores[0] == page.scores[1]
    assert [bundle.id(r) for r in page.rows] == [
        "components/sheet.mdx#sheet/usage",
        "components/dialog.mdx#dialog/usage",
    ]


def test_topk_orders_ties_by_key_then_row() -> None:
    rows = np.array([3, 5, 7, 9], np.int64)
    values = np.array([1.0, 2.0, 2.0, 2.0], np.float32)
    keys = {3: 0, 5: 9, 7: 1, 9: 1}
    got, _ = topk(rows, values, 3, lambda r: np.array([keys[x] for x in r.tolist()]))
    assert got.tolist() == [7, 9, 5]
    assert topk(rows, values, 3)[0].tolist() == [5, 7, 9]  # no tie-break: row order


def test_topk_leaves_large_ties_in_row_order() -> None:
    n = MAX_TIED + 1
    rows, values = np.arange(n), np.ones(n, np.float32)
    got, _ = topk(rows, values, 5, lambda r: -r)  # would reverse them: not asked for so many
    assert got.tolist() == [0, 1, 2, 3, 4]


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=40), st.integers(1, 50))
def test_topk_tie_break_only_reorders_equal_values(scores: list[int], k: int) -> None:
    rows = np.arange(len(scores))
    values = np.array(scores, np.float32)
    plain, plain_values = topk(rows, values, k)
    broken, broken_values = topk(rows, values, k, lambda r: (r * 7) % 5)
    assert plain_values.tolist() == broken_values.tolist()
    assert sorted(plain.tolist()) == sorted(broken.tolist()) or len(set(scores)) < len(scores)
