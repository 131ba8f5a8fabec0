"""A declaration without content right before the section named for it (`.. setting::
task_acks_late` then a ``task_acks_late`` heading: Django, Celery, Scrapy) belongs to that section
and shows nothing of its own: Sphinx renders a cross-reference type (`setting`, Django's
`templatetag`, Celery's `signal`) as a link target only, and the heading already names it."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from conftest import build_bundle
from docsmcp.sources.formats.rst.rst import rst_to_markdown
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

``task_internal_error``
~~~~~~~~~~~~~~~~~~~~~~~

Dispatched when an internal error occurs.

.. signal:: task_internal_error

Provides arguments: ``task_id``.

Commands
--------

.. control:: revoke

``revoke``: Revoking tasks
~~~~~~~~~~~~~~~~~~~~~~~~~~

All workers keep a memory of revoked task ids.

Settings
--------

.. setting:: task_acks_late

``task_acks_late``
~~~~~~~~~~~~~~~~~~
.. versionadded:: 2.0

Default: Disabled.

Late ack means the message is acknowledged after the task ran.

.. warning:: Use it with idempotent tasks.
"""


def test_a_declared_name_is_shown_once_by_its_heading() -> None:
    out = rst_to_markdown("signals.rst", SIGNALS)
    lines = out.text.split("\n")
    # (declared within its own section: Celery's task_internal_error; under a title opening
    # with it as code: ``revoke``: Revoking tasks)
    names = ("before_task_publish", "after_task_publish", "task_internal_error", "task_acks_late")
    for name in names:
        shown = [line for line in lines if name in line]
        assert len(shown) == 1 and shown[0].startswith("### "), (name, shown)
    # The first of a group is not left at the end of the group's heading either.
    group = out.text.split("## Task Signals", 1)[1].split("###", 1)[0]
    assert group.strip() == "", group
    assert [line for line in lines if "revoke" in line][:2] == [
        "### `revoke`: Revoking tasks",
        "All workers keep a memory of revoked task ids.",
    ]
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
        # The section describes it (the version note is no description).
        assert entry["description"] == (
            "Default: Disabled. Late ack means the message is acknowledged after the task ran."
        ), entry
        # A project's own declaration type (Celery's `signal`, from its Sphinx extension)
        # declares an object of its kind, found at its section.
        result = s.call("get_api_reference", {"method": "after_task_publish"})
        signal = result.structured_content["entries"][0]  # type: ignore[index]
        assert signal["kind"] == "signal", signal
        assert signal["chunk_id"] == "signals.rst#signals/task-signals/aftertaskpublish", signal
        assert signal["description"] == "Dispatched when a task has been sent to the broker."
        result = s.call("get_api_reference", {"method": "revoke"})
        revoke = result.structured_content["entries"][0]  # type: ignore[index]
        assert revoke["chunk_id"] == "signals.rst#signals/commands/revoke-revoking-tasks", revoke


def test_an_autodoc_stub_under_its_own_name_stays_a_stub() -> None:
    page = "Flask\n=====\n\n.. autoclass:: Flask\n\nApp\n---\n\n.. autoclass:: App\n"
    text = rst_to_markdown("api.rst", page).text
    assert "`Flask` (API reference generated from the code by autodoc)" in text, text
    assert "`App` (API reference generated from the code by autodoc)" in text, text


def test_a_declaration_of_an_unknown_type_is_no_unknown_directive(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Celery's build said "unknown reST directive 'signal'" for its 34 signal declarations;
    one that declares nothing it heads stays unknown, and is said."""
    # (a name no other test meets: each is said once per process)
    with caplog.at_level(logging.WARNING):
        rst_to_markdown("signals.rst", SIGNALS.replace(".. signal::", ".. wiresignal::"))
    assert "unknown reST directive" not in caplog.text
    with caplog.at_level(logging.WARNING):
        rst_to_markdown("other.rst", "Title\n=====\n\n.. marker:: here\n\nText.\n")
    assert "other.rst:4: unknown reST directive 'marker'" in caplog.text


def test_a_setting_role_is_code_that_references_its_section(tmp_path: Path) -> None:
    """Sphinx shows `:setting:`task_acks_late`` as code linking to the setting (Celery wrote
    712, Django and Scrapy many more); it was plain text that referenced nothing."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "signals.rst").write_text(SIGNALS)
    (docs / ".docs-mcp.json").write_text('{"version": "1", "strategy": {"chunk_by": "h3"}}')
    (docs / "guide.rst").write_text(
        "Reliability\n===========\n\nEnable :setting:`task_acks_late` for idempotent work.\n"
    )
    out = build_bundle(docs, tmp_path / "idx")
    with McpSession(out) as s:
        assert "Enable `task_acks_late` for idempotent work." in s.get_doc("guide.rst#reliability")
        hit = s.search(query="idempotent work", limit=1, expand_references=True)["hits"][0]
    assert hit["chunk_id"] == "guide.rst#reliability", hit
    assert [r["id"] for r in hit["references"]] == ["signals.rst#signals/settings/taskackslate"]
