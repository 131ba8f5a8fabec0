"""A declaration without content right before the section named for it (`.. setting::
task_acks_late` then a ``task_acks_late`` heading: Django, Celery, Scrapy) belongs to that section
and shows nothing of its own: Sphinx renders a cross-reference type (`setting`, Django's
`templatetag`, Celery's `signal`) as a link target only, and the heading already names it."""

from __future__ import annotations

from pathlib import Path

from conftest import build_bundle
from docsmcp.sources.formats.rst import rst_to_markdown
from mcp_client import McpSession

# Celery's shape (userguide/signals.rst, userguide/configuration.rst): the first declaration
# of a group sits right under the group's heading, before the group's first subsection.
SIGNALS = """Signals
=======

Task Signals
------------

.. signal:: before_task_publish

``before_task_publish``
~~~~~~~~~~~~~~~~~~~~~~~

Dispatched before a task is published.

.. signal:: after_task_publish

``after_task_publish``
~~~~~~~~~~~~~~~~~~~~~~

Dispatched when a task has been sent to the broker.

Settings
--------

.. setting:: task_acks_late

``task_acks_late``
~~~~~~~~~~~~~~~~~~

Default: Disabled. Late ack means the message is acknowledged after the task ran.
"""


def test_a_declared_name_is_shown_once_by_its_heading() -> None:
    out = rst_to_markdown("signals.rst", SIGNALS)
    lines = out.text.split("\n")
    for name in ("before_task_publish", "after_task_publish", "task_acks_late"):
        shown = [line for line in lines if name in line]
        assert len(shown) == 1 and shown[0].startswith("### "), (name, shown)
    # The first of a group is not left at the end of the group's heading either.
    group = out.text.split("## Task Signals", 1)[1].split("###", 1)[0]
    assert group.strip() == "", group
    # The declared name is an anchor of its heading's line (links `#task_acks_late` land there).
    heading = next(i for i, line in enumerate(lines) if line.startswith("### `task_acks_late`"))
    assert (heading, "task_acks_late") in out.anchors, out.anchors


def test_a_declared_setting_is_found_at_its_own_section(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "signals.rst").write_text(SIGNALS)
    (docs / ".docs-mcp.json").write_text('{"version": "1", "strategy": {"chunk_by": "h3"}}')
    out = build_bundle(docs, tmp_path / "idx")
    with McpSession(out) as s:
        result = s.call("get_api_reference", {"method": "task_acks_late"})
        entry = result.structured_content["entries"][0]  # type: ignore[index]
        assert entry["chunk_id"] == "signals.rst#signals/settings/taskackslate", entry
        assert entry["category"] == "Settings", entry
