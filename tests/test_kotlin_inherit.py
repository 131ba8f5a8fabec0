"""Kotlin types list what they inherit from types of the tree, by the rule Java's, TypeScript's
and Doxygen's pages follow: a line per base of links to the base's sections, and an API entry
per member named as the child's; never a copy (formats/source/kotlin_inherit.py,
packages/kotlin_inherit.py). Fixtures in okhttp's shape (a module of `src/main/kotlin`)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, run_docsmcp, write_tree
from docsmcp.sources.formats.source.inherit_walk import MAX_BASES, nearest_first
from docsmcp.sources.formats.source.kotlin_merge import Merge, split
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

REQUEST_BODY = """package okthing

import java.io.Closeable

/** A request's content. */
abstract class RequestBody {
  /** Returns the Content-Type header for this body, or null if it is unknown. */
  abstract fun contentType(): MediaType?

  /** Returns the number of bytes written to [sink], or -1 if that count is unknown. */
  open fun contentLength(): Long = -1L

  /** Writes the content of this request to [sink]. */
  abstract fun writeTo(sink: BufferedSink)

  /** Returns true if this body expects at most one transmission. */
  open fun isOneShot(): Boolean = false

  internal fun secret(): Int = 0
}
"""

MULTIPART = """package okthing

/** An RFC 2387-compliant request body. */
class MultipartBody internal constructor(val boundary: String) : RequestBody() {
  override fun contentType(): MediaType = TODO()

  override fun writeTo(sink: BufferedSink) {}
}
"""

LISTENERS = """package okthing

/** Listener for metrics events. */
abstract class EventListener {
  /** Invoked as soon as a call is enqueued or executed. */
  open fun callStart(call: Call) {}

  /** Invoked when a call fails permanently. */
  open fun callFailed(call: Call, ioe: IOException) {}
}

/** An event listener that logs every event. */
class LoggingEventListener : EventListener(), Closeable {
  override fun callStart(call: Call) {}

  override fun close() {}
}
"""


def _tree(tmp_path: Path) -> Path:
    src = "okthing/src/main/kotlin/okthing"
    return write_tree(
        tmp_path / "okthing",
        {
            "settings.gradle.kts": 'include(":okthing")\n',
            "okthing/build.gradle.kts": 'plugins { kotlin("jvm") }\n',
            f"{src}/RequestBody.kt": REQUEST_BODY,
            f"{src}/MultipartBody.kt": MULTIPART,
            f"{src}/EventListener.kt": LISTENERS,
        },
    )


def test_a_class_lists_what_it_inherits_as_links(tmp_path: Path) -> None:
    out = build_bundle(_tree(tmp_path), tmp_path / "idx")
    pages = page_texts(out)
    src = "okthing/src/main/kotlin/okthing"
    multipart = pages[f"{src}/MultipartBody.kt"]
    # A base on another page: one line of its members the class does not declare, no copy.
    assert "**Inherited from `RequestBody`:** `contentLength`, `isOneShot`" in multipart
    assert "Returns true if this body expects" not in multipart
    assert "secret" not in multipart  # (internal: Dokka shows it nowhere)
    # A base on the same page: links to its sections; `Closeable` (outside the tree): nothing.
    listeners = pages[f"{src}/EventListener.kt"]
    anchor = "#EventListener.callFailed-Call-IOException-"
    assert f"**Inherited from `EventListener`:** [`callFailed`]({anchor})" in listeners
    assert listeners.count("Invoked when a call fails permanently.") == 1
    api = ApiRegistry(open_bundle(out))
    # The member is found by the child's name, with the base's declaration and comment.
    (one,) = [api.spec(i) for i in api.lookup("MultipartBody.isOneShot")]
    assert one["name"] == "okthing.MultipartBody.isOneShot"
    assert one["signature"].startswith("open fun isOneShot(): Boolean")
    assert one["description"] == "Returns true if this body expects at most one transmission."
    # The class's own override stays its own.
    (own,) = [api.spec(i) for i in api.lookup("MultipartBody.contentType")]
    assert own["signature"] == "override fun contentType(): MediaType"
    # Same page: the child's entry is the base's own section (no chunk more).
    (failed,) = [api.spec(i) for i in api.lookup("LoggingEventListener.callFailed")]
    (base,) = [api.spec(i) for i in api.lookup("EventListener.callFailed")]
    assert failed["chunk_id"] == base["chunk_id"]
    assert failed["description"] == "Invoked when a call fails permanently."
    assert "Inherited from `Closeable`" not in listeners  # (outside the tree)
    assert "Inherited" not in pages[f"{src}/RequestBody.kt"]


def test_the_line_refers_to_the_bases_sections(tmp_path: Path) -> None:
    built = run_docsmcp("build", "--docs-dir", _tree(tmp_path), "--out", tmp_path / "i", "--json")
    refs = json.loads(built.stdout)["references"]
    # (`contentLength` and `isOneShot` on MultipartBody's line, to RequestBody's page)
    assert refs["resolved"] >= 2 and refs["resolved"] == refs["found"], refs


@given(
    st.dictionaries(
        st.sampled_from("ABCDEFGHIJ"),
        st.tuples(
            st.lists(st.sampled_from("ABCDEFGHIJxy"), max_size=6),
            st.sets(st.sampled_from("abcdef")),
        ),
        max_size=10,
    ),
    st.lists(st.sampled_from("ABCDEFGHIJ"), max_size=4),
)
@FUZZ
def test_any_graph_of_bases_lists_each_base_and_name_once(
    graph: dict[str, tuple[list[str], set[str]]], written: list[str]
) -> None:
    found = nearest_first(
        written,
        {"a"},
        lambda name, _seen: name if name in graph else None,
        lambda b: graph[b][0],
        lambda b: sorted(graph[b][1]),
        lambda m: m,
        lambda b: b,
    )
    bases = [b for b, _ in found]
    names = [m for _, ms in found for m in ms]
    assert len(bases) == len(set(bases)) <= MAX_BASES
    assert len(names) == len(set(names)) and "a" not in names


@given(st.text(max_size=200))
@FUZZ
def test_merge_line_with_bases_round_trips(text: str) -> None:
    merge = Merge(inherits={text: [{"key": text, "members": [{"name": text}]}]})
    body, read = split("class A\n" + merge.encode())
    assert body == "class A" and read == merge
