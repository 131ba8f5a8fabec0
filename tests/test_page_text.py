"""page_text: the plumbing every code reader's page shares."""

from __future__ import annotations

import time

from docsmcp.sources.formats.source.page_text import Anchors, unique_anchor


def test_overloads_get_numbered_anchors_in_order() -> None:
    used = Anchors({"f-3"})  # (a name that already holds a suffix: skipped, not reused)
    assert [unique_anchor("f", used) for _ in range(4)] == ["f", "f-2", "f-4", "f-5"]
    assert unique_anchor("g", used) == "g"
    assert {"f", "f-2", "f-3", "f-4", "f-5", "g"} == used


def test_fifty_thousand_overloads_of_one_name_stay_linear() -> None:
    """Helper c (session 18) found 50,000 `def f` in one Scala file took minutes: each
    overload tried `f-2`, `f-3`… from the start."""
    used = Anchors()
    started = time.process_time()
    anchors = [unique_anchor("f", used) for _ in range(50_000)]
    assert time.process_time() - started < 2  # CPU seconds; ~0.1 s
    assert len(set(anchors)) == 50_000 and anchors[-1] == "f-50000"
