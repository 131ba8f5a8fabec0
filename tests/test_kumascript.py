"""MDN's KumaScript macros and definition lists (formats/markdown/kumascript.py), in the shape of
mdn/content's `files/en-us` pages: front matter `title`/`slug`/`page-type`, `{{jsxref()}}`,
`{{domxref()}}`, `{{HTTPHeader()}}`, badges, sidebars, `{{Compat}}`/`{{Specifications}}` under
their headings, and `- term` / `  - : definition` lists."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.model.source import SourceFile, Strategy
from docsmcp.sources.formats.markdown import dialects, kumascript
from docsmcp.sources.sites import mdn_api, mdn_css
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

ALLSETTLED = """---
title: Promise.allSettled()
slug: Web/JavaScript/Reference/Global_Objects/Promise/allSettled
page-type: javascript-static-method
browser-compat: javascript.builtins.Promise.allSettled
---

{{JSRef}}

The **`Promise.allSettled()`** method takes promises and returns a single {{jsxref("Promise")}}.

## Syntax

```js-nolint
Promise.allSettled(iterable)
```

### Parameters

- `iterable` {{optional_inline}}
  - : An [iterable](/en-US/docs/Web/JavaScript/Reference/Iteration_protocols)
    (such as an {{jsxref("Array")}}) of promises.

    A second paragraph of the definition.

- `signal` {{ReadOnlyInline}} {{deprecated_inline}}
  - : An {{domxref("AbortSignal")}} sent with the {{HTTPHeader("Accept", "", "", 1)}} header,
    see {{Glossary("CORS", "cross-origin requests")}}.

## Description

Compare {{jsxref("Promise.all()")}} and {{jsxref("Array.prototype.map()", "map()")}};
a {{HTTPStatus("404")}} reply,
the {{HTMLElement("input/image", "&lt;input type=\\"image\\"&gt;")}} element,
{{RFC(9110, "HTTP Semantics", 15)}}.

```js
// {{jsxref("Kept")}} in code
```

Written in a code span: `{{HTMLElement("form")}}`.

{{EmbedLiveSample("Examples", 100, 200)}}

## Specifications

{{Specifications}}

## Browser compatibility

{{Compat}}

## See also

- {{jsxref("Promise.all()")}}
"""

PROMISE = """---
title: Promise
slug: Web/JavaScript/Reference/Global_Objects/Promise
page-type: javascript-class
---

{{JSRef}}

The **`Promise`** object represents the eventual completion of an asynchronous operation.
"""


def test_mdn_pages_read_as_developer_mozilla_org_shows_them(tmp_path: Path) -> None:
    docs = write_tree(
        tmp_path / "files" / "en-us",
        {
            "web/javascript/reference/global_objects/promise/allsettled/index.md": ALLSETTLED,
            "web/javascript/reference/global_objects/promise/index.md": PROMISE,
        },
    )
    bundle = build_bundle(docs, tmp_path / "idx")
    text = page_texts(bundle)["web/javascript/reference/global_objects/promise/allsettled/index.md"]
    for shown in (
        "returns a single [`Promise`](/en-US/docs/Web/JavaScript/Reference/Global_Objects/Promise)",
        "- `iterable` Optional\n  An [iterable]",  # the definition under its term, marker gone
        "(such as an [`Array`](/en-US/docs/Web/JavaScript/Reference/Global_Objects/Array)) of",
        "    A second paragraph of the definition.",
        "- `signal` Read only Deprecated\n",
        "An [`AbortSignal`](/en-US/docs/Web/API/AbortSignal) sent with the "
        "[Accept](/en-US/docs/Web/HTTP/Headers/Accept) header,",  # 4th argument: not in code
        "see [cross-origin requests](/en-US/docs/Glossary/CORS).",
        "[`map()`](/en-US/docs/Web/JavaScript/Reference/Global_Objects/Array/map)",
        "[`Promise.all()`](/en-US/docs/Web/JavaScript/Reference/Global_Objects/Promise/all)",
        "[`404 Not Found`](/en-US/docs/Web/HTTP/Status/404)",
        '[`<input type="image">`](/en-US/docs/Web/HTML/Element/input/image)',
        "[RFC 9110, section 15: HTTP Semantics](https://datatracker.ietf.org/doc/html/rfc9110#section-15)",
        '// {{jsxref("Kept")}} in code',  # fenced code is code
        "Written in a code span: `<form>`.",  # the text alone, no link inside code
    ):
        assert shown in text, shown
    for gone in ("{{JSRef", "- :", "EmbedLiveSample", "Specifications", "Browser compatibility"):
        assert gone not in text, gone
    assert text.strip().startswith("The **`Promise.allSettled()`** method")
    # The generated links are links of the bundle: the Promise page is one of its pages.
    assert (
        "Promise" in page_texts(bundle)["web/javascript/reference/global_objects/promise/index.md"]
    )


APPEND = """---
title: "FormData: append() method"
short-title: append()
slug: Web/API/FormData/append
page-type: web-api-instance-method
---

{{APIRef("XMLHttpRequest API")}} {{AvailableInWorkers}}

The **`append()`** method of the {{domxref("FormData")}} interface appends a new value.

## Syntax

```js-nolint
append(name, value)
append(name, value, filename)
```

### Parameters

- `name`
  - : The name of the field.
- `filename` {{optional_inline}}

  - : The filename reported to the server.

### Return value

None ({{jsxref("undefined")}}).
"""


def test_mdn_reference_pages_are_api_entries(tmp_path: Path) -> None:
    """An MDN page's title names its object (55 entries on 13,043 pages before: the registry's
    rule reads headings, and an MDN page's name is its front matter's title)."""
    docs = write_tree(
        tmp_path / "en-us",
        {
            "web/api/formdata/append/index.md": APPEND,
            "web/javascript/reference/global_objects/promise/allsettled/index.md": ALLSETTLED,
            "web/javascript/reference/global_objects/promise/index.md": PROMISE,
        },
    )
    bundle = build_bundle(docs, tmp_path / "idx")
    with McpSession(bundle) as s:
        found = s.call("get_api_reference", {"method": "FormData.append"})
        assert not found.is_error
        entry = found.structured_content["entries"][0]
        allsettled = s.call("get_api_reference", {"method": "Promise.allSettled()"})
        promise = s.call("get_api_reference", {"method": "Promise"})
    assert entry["name"] == "FormData.append()" and entry["kind"] == "method"
    assert entry["signature"] == "append(name, value); append(name, value, filename)"
    assert entry["description"].startswith("The append() method of the FormData interface")
    assert [(p["name"], p["required"]) for p in entry["parameters"]] == [
        ("name", True),
        ("filename", False),
    ]
    assert entry["returns"] == "None (undefined)."
    assert entry["chunk_id"].startswith("web/api/formdata/append/index.md#")
    assert allsettled.structured_content["entries"][0]["name"] == "Promise.allSettled()"
    assert promise.structured_content["entries"][0]["kind"] == "type"


WRITE = """---
title: "Document: write() method"
slug: Web/API/Document/write
page-type: web-api-instance-method
---

{{ApiRef("DOM")}}{{Deprecated_Header}}{{SecureContext_Header}}

{{AvailableInWorkers("window_and_worker_except_service")}}

The **`write()`** method of the {{domxref("Document")}} interface writes text.

A {{cssxref("max")}} or {{cssxref("gradient/linear-gradient")}} of {{cssxref("length")}} and
{{cssxref("@font-face/size-adjust")}} ({{cssxref("max", "the max")}}, {{cssxref("color")}}).

```css
/* {{cssxref("max")}} */
```

## Formal definition

{{CSSInfo}}

## Formal syntax

{{CSSSyntax}}
"""

CSS_PAGES = {
    "web/css/max/index.md": "---\ntitle: max()\nslug: Web/CSS/max\npage-type: css-function\n---\n",
    "web/css/gradient/linear-gradient/index.md": (
        "---\ntitle: linear-gradient()\nslug: Web/CSS/gradient/linear-gradient\n"
        "page-type: css-function\n---\n"
    ),
    "web/css/length/index.md": (
        "---\ntitle: <length>\nslug: Web/CSS/length\npage-type: css-type\n---\n"
    ),
    "web/css/color/index.md": (
        "---\ntitle: color\nslug: Web/CSS/color\npage-type: css-property\n---\n"
    ),
}


def test_banners_and_css_names_read_as_mdn_shows_them(tmp_path: Path) -> None:
    """The banners above a page are a quote of their label and first sentence (the page's
    description stays its first paragraph); a cssxref of a CSS function or type shows `max()`
    or `<length>` as MDN's macro does, looking up the page's type; the formal definition and
    syntax, filled from MDN's data, leave no empty heading."""
    docs = write_tree(tmp_path / "en-us", {"web/api/document/write/index.md": WRITE, **CSS_PAGES})
    bundle = build_bundle(docs, tmp_path / "idx")
    text = page_texts(bundle)["web/api/document/write/index.md"]
    for shown in (
        "> Deprecated: This feature is no longer recommended. Secure context: This feature is "
        "available only in secure contexts (HTTPS), in some or all supporting browsers.\n",
        "> Note: This feature is available in [Web Workers](/en-US/docs/Web/API/Web_Workers_API),"
        " except for [Service Workers](/en-US/docs/Web/API/Service_Worker_API).",
        "A [`max()`](/en-US/docs/Web/CSS/max) or [`linear-gradient()`]"
        "(/en-US/docs/Web/CSS/gradient/linear-gradient) of "
        "[`<length>`](/en-US/docs/Web/CSS/length)",
        "[`size-adjust`](/en-US/docs/Web/CSS/@font-face/size-adjust)",  # (a path's last part)
        "([`the max`](/en-US/docs/Web/CSS/max), [`color`](/en-US/docs/Web/CSS/color)).",
        '/* {{cssxref("max")}} */',  # (code as written)
    ):
        assert shown in text, shown
    assert "Formal" not in text and "{{" not in text.replace('{{cssxref("max")}}', "")
    with McpSession(bundle) as s:
        entry = s.call("get_api_reference", {"method": "Document.write"})
    described = entry.structured_content["entries"][0]["description"]
    assert described.startswith("The write() method of the Document interface")


_CSS_PIECES = st.sampled_from(
    ['{{cssxref("', '{{CSSxRef(', "'", '"', "max", "length", "/", ")}}", "}}", ", ", '""',
     "#a", "```", "\n", " ", "&lt;", "&gt;", "()", "{{"]
)  # fmt: skip


@FUZZ
@given(st.lists(_CSS_PIECES, max_size=30).map("".join))
def test_css_names_keep_the_lines_and_never_raise(body: str) -> None:
    def page(path: str, text: str, front: str = "") -> SourceFile:
        return SourceFile(path, text, text, Strategy("h2", 4000), (), None, None, front)

    kinds = [
        page("web/css/max/index.md", "", '{"slug": "Web/CSS/max", "page-type": "css-function"}'),
        page("web/css/length/index.md", "", '{"slug": "Web/CSS/length", "page-type": "css-type"}'),
    ]
    out = mdn_css.resolve([*kinds, page("a/index.md", body)])[-1].body
    assert out.count("\n") == body.count("\n")
    kumascript.read(out.split("\n"))


def test_other_sites_template_variables_are_not_mdn_macros() -> None:
    """A page calling no macro MDN defines is not read as MDN's (mkdocs-macros' `{{ table }}`
    and Jinja `{{ name("x") }}` stay dialects.py's), and a `- : ` line stays as written."""
    lines = ["{{ table }}", 'Call {{ button("Go") }} here.', "- a", "  - : b"]
    assert not kumascript.may_hold("\n".join(lines))
    assert dialects.rewrite(lines).display[1] == 'Call {{ button("Go") }} here.'
    assert dialects.rewrite(lines).display[3] == "  - : b"


def test_links_go_where_mdn_s_macros_link() -> None:
    """Checked on all of mdn/content's en-us (13,043 pages): 150,542 of 151,988 links land on a
    page's slug; the rest are MDN's own dead links."""
    cases = {
        '{{jsxref("Statements/for...of", "for...of")}}': "Reference/Statements/for...of",
        '{{jsxref("Intl/NumberFormat/format")}}': "Global_Objects/Intl/NumberFormat/format",
        '{{jsxref("Operators")}}': "Web/JavaScript/Reference/Operators",
        '{{jsxref("Array.prototype[Symbol.iterator]()")}}': "Global_Objects/Array/Symbol.iterator",
        '{{domxref("Fetch API")}}': "Web/API/Fetch_API",
        '{{domxref("Window.fetch()")}}': "Web/API/Window/fetch",
        '{{cssxref("&lt;length&gt;")}}': "(/en-US/docs/Web/CSS/length)",
        '{{cssxref("&lt;color&gt;")}}': "Web/CSS/color_value",
    }
    for macro, link in cases.items():
        assert link in kumascript.read_line(macro), macro
    assert kumascript.read_line('{{cssxref("&lt;length&gt;")}}').startswith("[`<length>`]")


def test_a_heading_with_a_table_and_text_keeps_both() -> None:
    lines = ["## Browser compatibility", "", "{{Compat}}", "", "Firefox ships it.", "## Next"]
    assert kumascript.read(lines) == [
        "## Browser compatibility",
        "",
        "",
        "",
        "Firefox ships it.",
        "## Next",
    ]
    nested = ["## Specifications", "{{Specifications}}", "### Notes", "Words."]
    assert kumascript.read(nested)[0] == "## Specifications"


_PIECES = st.sampled_from(
    ['{{jsxref("', '")}}', "{{", "}}", "(", ")", '"', "'", "- : ", "- ", "`", "```", "## ",
     "{{Compat}}", "{{domxref(", ",", "\n", "Array", " ", "\\", "{{optional_inline}}"]
)  # fmt: skip


@FUZZ
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_reading_keeps_the_line_count_and_never_raises(text: str) -> None:
    lines = text.split("\n")
    out = kumascript.read(lines)
    assert len(out) == len(lines)
    assert all("\n" not in line for line in out)


_PAGE = st.sampled_from(
    ["## Syntax", "### Parameters", "### Return value", "```js", "```", "- `x`", "  - : y",
     "- : z", "", "{{jsxref(\"A\")}}", "text", "- ", "#", "`"]
)  # fmt: skip


@FUZZ
@given(st.lists(_PAGE, max_size=30), st.sampled_from(["A: b() method", "A", "", ": x method"]))
def test_an_api_entry_is_read_from_any_page(lines: list[str], title: str) -> None:
    body = "\n".join(lines)
    front = json.dumps({"title": title, "slug": "A/b", "page-type": "web-api-instance-method"})
    page = SourceFile("a/index.md", body, body, Strategy("h2", 4000), (), title, None, front)
    (out,) = mdn_api.resolve([page])
    for entry in out.api:
        assert 1 <= entry.line_start <= entry.line_end
