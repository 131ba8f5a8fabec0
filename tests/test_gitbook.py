"""GitBook spaces kept in git (formats/markdown/gitbook.py, sources/sites/gitbook_site.py), in
the shapes of the spaces tried: Adobe's mobile SDK docs (`{% tab title="Android" %}` then
`## Java`, API classes as headings in tabs, `## C\\#`), Feast's (`.gitbook.yaml` with `root:
./docs/`, content-ref cards written with the file's name, `{% page-ref %}`), and GitBook's API
blocks (`{% swagger %}`)."""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ, run_docsmcp, write_tree
from docsmcp.sources.formats.markdown import gitbook
from docsmcp.sources.formats.markdown.fences import fenced_lines
from docsmcp.sources.navigation.navfiles import read_nav
from docsmcp.sources.site_build import unbuilt
from docsmcp.sources.sites import gitbook_site
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

CONFIG = """root: ./docs/

structure:
  readme: intro.md
  summary: toc.md

redirects:
  old/page: ./guides/quickstart.md
"""
TOC = """# Table of contents

* [Welcome to Acme](intro.md)
* [Quickstart guide](guides/quickstart.md)

## Reference

* [Parcels API](guides/client.md)
* [Webhooks](guides/webhooks.md)
"""
INTRO = """---
description: Acme's SDK sends parcels from your code.
layout:
  title:
    visible: true
---

# Welcome

{% content-ref url="guides/quickstart.md" %}
[quickstart.md](guides/quickstart.md)
{% endcontent-ref %}

{% page-ref page="guides/client.md" %}
"""
QUICKSTART = """# Quickstart

## Debug logging

{% hint style="warning" %}
## Keys are secret

Never commit your API key.
{% endhint %}

{% tabs %}
{% tab title="Android" %}
## Java

```java
Acme.setLogLevel(LogLevel.DEBUG);
```
{% endtab %}

{% tab title="Unity" %}
## C\\#

```csharp
Acme.SetLogLevel(LogLevel.Debug);
```
{% endtab %}

{% tab title="AEP 3.x \\(Swift\\)" %}
```swift
Acme.setLogLevel(.debug)
```
{% endtab %}
{% endtabs %}

## Public classes

{% tabs %}
{% tab title="Android" %}
### ParcelRequest

Describes one parcel to send.

```java
public class ParcelRequest {}
```
{% endtab %}
{% endtabs %}

{% file src="../.gitbook/assets/acme-sdk.zip" %}
The SDK archive
{% endfile %}
"""
CLIENT = """# The parcels API

{% swagger method="post" path="/parcels" baseUrl="https://api.acme.test" summary="Send a parcel" %}
{% swagger-description %}
Sends one parcel to a recipient.
{% endswagger-description %}

{% swagger-parameter in="body" name="recipient" type="String" required="true" %}
Who receives the parcel
{% endswagger-parameter %}

{% swagger-response status="200: OK" description="The parcel left" %}
```javascript
{"id": "p_1"}
```
{% endswagger-response %}
{% endswagger %}
"""


def _space(root: Path) -> Path:
    return write_tree(
        root,
        {
            ".gitbook.yaml": CONFIG,
            "README.md": "# Acme repository\n\nHow to build the repository.\n",
            "docs/toc.md": TOC,
            "docs/intro.md": INTRO,
            "docs/guides/quickstart.md": QUICKSTART,
            "docs/guides/client.md": CLIENT,
            "docs/guides/webhooks.md": "# Webhooks\n\nAcme calls your URL.\n",
        },
    )


def _chunks(bundle: Path) -> dict[str, str]:
    b = open_bundle(bundle)
    return {b.id(r): b.text(r) for r in range(b.n_chunks)}


def test_a_gitbook_space_reads_as_gitbook_shows_it(tmp_path: Path) -> None:
    repo = _space(tmp_path / "acme")
    proc = run_docsmcp("build", "--docs-dir", repo, "--out", tmp_path / "idx", "--quiet")
    assert proc.returncode == 0
    chunks = _chunks(tmp_path / "idx")
    # The summary is the sidebar and the repository's README lies outside the space's root:
    # no pages (.gitbook.yaml's `root` and `structure.summary`).
    assert {c.split("#")[0] for c in chunks} == {
        "docs/intro.md", "docs/guides/quickstart.md", "docs/guides/client.md",
        "docs/guides/webhooks.md",
    }  # fmt: skip
    quick = "\n".join(v for k, v in chunks.items() if k.startswith("docs/guides/quickstart.md"))
    # A heading naming its tab's language is a label of the tab's code, no section; the code
    # stays in `Debug logging`. A class heading in a tab stays a section of the page.
    assert "docs/guides/quickstart.md#quickstart/debug-logging" in chunks
    assert "### ParcelRequest\n" in chunks["docs/guides/quickstart.md#quickstart/public-classes"]
    assert not [k for k in chunks if k.endswith(("/java", "/c", "/keys-are-secret"))]
    debug = chunks["docs/guides/quickstart.md#quickstart/debug-logging"]
    assert "Android\nJava\n\n```java\nAcme.setLogLevel" in debug
    assert "Unity\nC#\n" in debug and "AEP 3.x (Swift)\n```swift" in debug
    assert "Warning\nKeys are secret\n" in debug
    assert "acme-sdk.zip\nThe SDK archive" in quick
    intro = chunks["docs/intro.md#welcome"]
    # Cards show the page's title, where GitBook wrote the file's name (page-ref left nothing).
    assert "[Quickstart](guides/quickstart.md)" in intro
    assert "[The parcels API](guides/client.md)" in intro and "quickstart.md]" not in intro
    api = chunks["docs/guides/client.md#the-parcels-api"]
    assert "POST /parcels: Send a parcel\n" in api
    assert "`recipient` (String, in body, required)\nWho receives the parcel" in api
    assert "Response 200: OK: The parcel left" in api
    shown = "\n".join(chunks.values()).split("\n")
    assert not [x for x, c in zip(shown, fenced_lines(shown), strict=True) if "{%" in x and not c]
    with McpSession(tmp_path / "idx") as s:
        hits = s.call("search_docs", {"query": "send a parcel recipient"})
        assert hits.structured_content["hits"][0]["filepath"] == "docs/guides/client.md"
        got = s.call("get_doc", {"chunk_id": "docs/guides/quickstart.md#quickstart/debug-logging"})
        assert not got.is_error and "Acme.SetLogLevel(LogLevel.Debug);" in got.content[0].text
        # the summary's order (toc.md, named by .gitbook.yaml), not the paths'
        listed = s.call("list_sections", {"depth": 5}).structured_content["entries"]
    paths = [e["path"] for e in listed if e.get("path", "").endswith(".md")]
    assert paths == [
        "docs/intro.md", "docs/guides/quickstart.md", "docs/guides/client.md",
        "docs/guides/webhooks.md",
    ]  # fmt: skip


def test_the_summary_titles_and_orders_and_init_proposes_the_space(tmp_path: Path) -> None:
    repo = _space(tmp_path / "acme")
    docs = repo / "docs"
    space = gitbook_site.find(repo, [repo])
    assert space is not None and space.root == docs.resolve()
    paths = ["README.md", "docs/README.md", "docs/intro.md", "docs/toc.md", "docs/x/y.md"]
    assert unbuilt(repo, [repo], paths)[1] == ("docs/toc.md", "/README.md")
    nav = read_nav(repo, [repo], ["docs/guides/client.md", "docs/intro.md"])
    assert nav.titles["docs/guides/client.md"] == "Parcels API"
    assert nav.order == {"docs/intro.md": 0, "docs/guides/client.md": 1}
    proc = run_docsmcp("init", "--docs-dir", repo)
    assert '"docs/toc.md"' in proc.stdout and '"/README.md"' in proc.stdout
    # The docs folder alone, its .gitbook.yaml outside the roots: SUMMARY.md as mdBook's.
    assert gitbook_site.find(docs, [docs]) is None


def test_liquid_tabs_and_pages_without_gitbook_blocks_are_unchanged() -> None:
    lines = ["# Page", "{% include note.html %}", "## Java", "{% if x %}", "text", "{% endif %}"]
    assert gitbook.read(lines, [False] * len(lines), {}) == lines
    assert not gitbook.may_hold("{% include x.html %}\n{% raw %}")
    # a heading in a tab deeper than the section holding it stays as written
    lines = ["## Setup", '{% tab title="iOS" %}', "### Example", "{% endtab %}"]
    assert gitbook.read(lines, [False] * 4, {}) == lines


PIECES = st.sampled_from(
    [
        "{% tabs %}", '{% tab title="Android" %}', '{% tab title="a\\(b" %}', "{% endtab %}",
        '{% hint style="info" %}', "{% endhint %}", '{% content-ref url="a.md" %}',
        "[a.md](a.md)", "{% endcontent-ref %}", '{% page-ref page="../b.md" %}',
        '{% swagger method="get" path="/x" %}', '{% swagger-parameter name="q" %}',
        '{% swagger-response status="404" %}', '{% file src="" %}', "{% file src='x/y.zip' %}",
        "## Java", "# Top", "### Deep", "## C\\#", "```", "text", "", "{%", "%}",
    ]
)  # fmt: skip


@FUZZ
@given(st.lists(st.one_of(PIECES, st.text(max_size=30)), max_size=40))
def test_gitbook_fuzz(lines: list[str]) -> None:
    """Any lines read without an error, and as many lines out as in."""
    out = gitbook.read(lines, fenced_lines(lines), {"gitbook:a.md": "A"})
    assert len(out) == len(lines)
    gitbook.named_pages("p/q.md", "\n".join(lines))
    gitbook.page_title(None, "\n".join(lines))
