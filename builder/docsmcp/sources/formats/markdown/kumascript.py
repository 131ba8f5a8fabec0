"""MDN's KumaScript macros and definition lists as the text a reader of developer.mozilla.org
sees (dialects.py's `rewrite` calls `read` on a page holding a macro MDN defines).

MDN's content (mdn/content, its translations and sites written in its shape) calls macros in
double braces: `{{jsxref("Array.prototype.map()")}}`, `{{domxref("Window.fetch()", "fetch()")}}`,
`{{HTTPHeader("Accept")}}`, `{{Glossary("CORS")}}`. MDN renders each as a link whose text is
the name (in code for an API, header, element or status) or the text given; badges
(`{{optional_inline}}`, `{{ReadOnlyInline}}`, `{{deprecated_inline}}`) as their word; sidebars,
live samples and the data tables (`{{Compat}}`, `{{Specifications}}`, filled from
browser-compat-data at render time) as nothing a page's text holds; the banners above a page
(`{{Deprecated_Header}}`, `{{SeeCompatTable}}`, `{{Non-standard_Header}}`,
`{{SecureContext_Header}}`, `{{AvailableInWorkers("service")}}`) as their label and first
sentence, a quote of them on their own line ("> Deprecated: This feature is no longer
recommended."), so a reader (and a search for "deprecated") sees what MDN shows, and the
page's description stays its first paragraph. Before, 56 % of MDN's
chunks (JavaScript, HTTP and Fetch: 4,876 of 8,778) showed `{{jsxref(` and the like, and the
names they link were no words of the page's prose for the index.

- A known macro reads as MDN renders it: a link, `[`Array`](/en-US/docs/Web/JavaScript/
  Reference/Global_Objects/Array)`, to the page MDN's macro links (so xref resolves it as any
  link); in a heading or a code span, its text alone. An unknown macro with arguments (MDN has
  hundreds, most rare) reads as its display text (the second string argument, else the first),
  one without as nothing. A page is read so only when it calls a macro MDN defines (`KNOWN`):
  other sites' `{{ name }}` template variables are dialects.py's.
- A heading whose section holds only `{{Compat}}` or `{{Specifications}}` leaves nothing (its
  table is not in the source; 2,963 empty headings and 60 chunks of a heading alone), nor one
  of only `{{CSSSyntax}}`, `{{CSSInfo}}`, `{{svginfo}}` or `{{WebExtExamples}}` (formal syntax
  and definitions, filled from webref's data: 526 chunks showed "## Formal definition" alone).
- MDN's definition lists, `- term` then `  - : definition` (yari's extension, every parameter
  and property list: 4,440 in 975 pages), read as the term's list item with the definition
  under it: the `- : ` marker goes, its text stays at the item's indent.

Line for line (the rewrite keeps the page's line count); lines of fenced code are never touched.
"""

from __future__ import annotations

import html
import re
from http import HTTPStatus

from docsmcp.sources.formats.markdown.fences import fenced_lines

# A macro call: `{{name}}`, `{{ name("a", 'b', 3, true) }}` (group 2: the arguments' text).
_STRINGS = r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'"""
MACRO = re.compile(
    r"\{\{[ \t]*([A-Za-z][\w-]*)[ \t]*(?:\(((?:" + _STRINGS + r"""|[^'"()\n])*)\))?[ \t]*\}\}"""
)
_ARG = re.compile(r""""((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|([^\s,'"]+)""")
_DEFINITION = re.compile(r"^([ \t]*)- : ?")
_HEADING = re.compile(r"^[ ]{0,3}(#{1,6})[ \t]")
# Tables and lists MDN fills from its data at render time (browser-compat-data, webref's formal
# syntax and definitions, its list of example extensions): nothing of the page's text.
_TABLE_MACROS = frozenset(
    {"compat", "specifications", "csssyntax", "cssinfo", "svginfo", "webextexamples"}
)
_DOCS = "/en-US/docs/"
# The folders of MDN's JavaScript reference that hold no global object.
_JS_REFERENCE_FOLDERS = frozenset(
    {"global_objects", "statements", "operators", "functions", "classes", "errors",
     "lexical_grammar", "iteration_protocols", "strict_mode", "template_literals",
     "trailing_commas", "deprecated_and_obsolete_features", "regular_expressions"}
)  # fmt: skip
# CSS types named as a property is, whose pages MDN names `<type>_value` (`<color>`: color_value).
_CSS_VALUE_TYPES = frozenset({"color", "flex", "position", "overflow", "url", "position-area"})

# Badges MDN shows as a word after a name.
_BADGES = {
    "optional_inline": "Optional",
    "readonlyinline": "Read only",
    "deprecated_inline": "Deprecated",
    "experimental_inline": "Experimental",
    "non-standard_inline": "Non-standard",
    "securecontext_inline": "Secure context",
}
# Macros that put nothing into the page's text: sidebars, banners above the text, live sample
# frames (the code above them is the text), the compatibility and specification tables.
_NOTHING = frozenset(
    {
        "compat", "specifications", "apiref", "jsref", "jssidebar", "httpsidebar", "cssref",
        "htmlsidebar", "svgref", "mathmlref", "defaultapisidebar", "embedinteractiveexample",
        "interactiveexample", "embedlivesample", "embedghlivesample",
        "previousnext", "previous", "next", "previousmenunext", "previousmenu", "nextmenu",
        "inheritancediagram", "listsubpages", "listsubpagesforsidebar", "listgroups",
        "apilistalpha", "quicklinkswithsubpages", "subpageswithsummaries", "glossarysidebar",
        "learnsidebar", "addonsidebar", "gamessidebar", "firefoxsidebar", "mdnsidebar",
        "webassemblysidebar", "httpref", "listexamplepages", "embedyoutube", "xsltref",
        "csssyntax", "cssinfo", "svginfo", "webextexamples", "firefox_for_developers",
        "jsfiddleembed", "glossarydisambiguation",
    }
)  # fmt: skip
_WORKERS = f"[Web Workers]({_DOCS}Web/API/Web_Workers_API)"
_SERVICE = f"[Service Workers]({_DOCS}Web/API/Service_Worker_API)"
_DEDICATED = f"[Dedicated Web Workers]({_DOCS}Web/API/DedicatedWorkerGlobalScope)"
_SHARED = f"[Shared Web Workers]({_DOCS}Web/API/SharedWorkerGlobalScope)"
# Banners MDN shows above a page's text, as their label and first sentence (MDN's notecards
# say more: why, and where to look): `{{AvailableInWorkers}}` by its argument.
_BANNERS = {
    "deprecated_header": "Deprecated: This feature is no longer recommended.",
    "seecompattable": "Experimental: This is an experimental technology.",
    "non-standard_header": "Non-standard: This feature is not standardized.",
    "securecontext_header": (
        "Secure context: This feature is available only in secure contexts (HTTPS), in some or "
        "all supporting browsers."
    ),
}
_IN_WORKERS = {
    "": f"This feature is available in {_WORKERS}.",
    "worker": f"This feature is only available in {_WORKERS}.",
    "window_and_worker_except_service": (
        f"This feature is available in {_WORKERS}, except for {_SERVICE}."
    ),
    "window_and_worker_except_shared": (
        f"This feature is available in {_WORKERS}, except for {_SHARED}."
    ),
    "worker_except_service": (
        f"This feature is only available in {_WORKERS}, except for {_SERVICE}."
    ),
    "window_and_dedicated": f"This feature is available in {_DEDICATED}.",
    "dedicated": f"This feature is only available in {_DEDICATED}.",
    "window_and_service": f"This feature is available in {_SERVICE}.",
    "service": f"This feature is only available in {_SERVICE}.",
}
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
# Cross-reference macros: the docs folder their names live in, and how the name shows.
_XREF = {
    "jsxref": "Web/JavaScript/Reference/",
    "domxref": "Web/API/",
    "httpheader": "Web/HTTP/Headers/",
    "httpmethod": "Web/HTTP/Methods/",
    "httpstatus": "Web/HTTP/Status/",
    "htmlelement": "Web/HTML/Element/",
    "cssxref": "Web/CSS/",
    "svgelement": "Web/SVG/Element/",
    "svgattr": "Web/SVG/Attribute/",
    "mathmlelement": "Web/MathML/Element/",
    "csp": "Web/HTTP/Headers/Content-Security-Policy/",
    "webextapiref": "Mozilla/Add-ons/WebExtensions/API/",
    "glossary": "Glossary/",
}
KNOWN = frozenset(
    {*_BADGES, *_NOTHING, *_XREF, *_BANNERS, "availableinworkers", "rfc", "js_property_attributes",
     "htmlattrxref"}
)  # fmt: skip
_MAY_HOLD = re.compile(
    r"\{\{[ \t]*(?:"
    + "|".join(sorted((re.escape(k) for k in KNOWN), key=len, reverse=True))
    + r")[ \t]*[(}]",
    re.IGNORECASE,
)


def may_hold(text: str) -> bool:
    """Whether `text` calls a macro MDN defines (then `read` reads the page)."""
    return "{{" in text and _MAY_HOLD.search(text) is not None


def _args(text: str | None) -> list[str]:
    """A call's arguments as strings (JavaScript strings unescaped, other literals as written)."""
    out = []
    for m in _ARG.finditer(text or ""):
        quoted = m.group(1) if m.group(1) is not None else m.group(2)
        text = re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else m.group(3)
        out.append(html.unescape(text))  # (`"&lt;length&gt;"`: `<length>`)
    return out


def _slug(name: str, macro: str) -> str:
    """The page a cross-reference macro links, under its folder (as MDN's macros build it)."""
    name = name.replace(" ", "_")  # (`{{domxref("Fetch API")}}`: Web/API/Fetch_API)
    if macro in ("jsxref", "domxref", "webextapiref"):
        # A name with a `/` is a path (`Statements/for...of`); else an object and its member
        # (`Array.prototype.map()`: Array/map). jsxref's is below Reference/ when it starts
        # with one of its folders, else a global object's (MDN's macro tries both pages).
        if "/" not in name:
            name = name.replace("()", "").replace(".prototype.", ".").replace(".prototype[", "[")
            if "[" in name:  # `Array.prototype[Symbol.iterator]()`: Array/Symbol.iterator
                head, _, rest = name.partition("[")
                name = f"{head}/{rest.rstrip(']')}"
            else:
                name = name.replace(".", "/")
        if macro == "jsxref" and name.split("/")[0].lower() not in _JS_REFERENCE_FOLDERS:
            name = f"Global_Objects/{name}"
    elif macro == "cssxref":
        name = name.replace("()", "")
        if name.startswith("<") and name.endswith(">"):  # a type: `<length>`, `<color>`
            name = name[1:-1]
            name = f"{name}_value" if name in _CSS_VALUE_TYPES else name
    elif macro in ("htmlelement", "svgelement", "mathmlelement"):
        name = name.lower()
    return name


def _shown(macro: str, args: list[str]) -> tuple[str, bool]:
    """The text a cross-reference shows, and whether MDN sets it in code."""
    name = args[0]
    display = args[1] if len(args) > 1 and args[1] else ""
    if macro == "glossary":
        return display or name, False
    if macro in ("htmlelement", "svgelement", "mathmlelement"):
        return display or f"<{name.split('/')[0]}>", True
    if macro == "httpstatus" and not display:
        try:
            return f"{name} {HTTPStatus(int(name)).phrase}", True
        except ValueError:
            return name, True
    if macro == "cssxref" and not display and "/" in name.rstrip("/"):
        # (MDN's macro shows a path's last part: `@font-face/size-adjust`: `size-adjust`)
        return name.rstrip("/").rsplit("/", 1)[-1], True
    plain = len(args) > 3 and args[3] not in ("", "0", "false")  # (jsxref's, domxref's 4th)
    return display or name, not plain


def _rendered(macro: str, args: list[str], linked: bool) -> str:
    """What the known or unknown `macro` called with `args` reads as."""
    if macro in _BADGES:
        return _BADGES[macro]
    if macro in _BANNERS or macro == "availableinworkers":
        text = _banner(macro, args)
        return text if linked else _LINK.sub(r"\1", text)
    if macro in _NOTHING or macro.endswith("sidebar"):
        return ""
    if macro == "rfc" and args:
        text = f"RFC {args[0]}"
        if len(args) > 2 and args[2]:
            text += f", section {args[2]}"
        if len(args) > 1 and args[1]:
            text += f": {args[1]}"
        section = f"#section-{args[2]}" if len(args) > 2 and args[2] else ""
        url = f"https://datatracker.ietf.org/doc/html/rfc{args[0]}{section}"
        return f"[{text}]({url})" if linked else text
    if macro == "js_property_attributes" and len(args) >= 3:
        yes = [a not in ("0", "false", "") for a in args[:3]]
        return "Property attributes: " + ", ".join(
            f"{n} {'yes' if y else 'no'}"
            for n, y in zip(("writable", "enumerable", "configurable"), yes, strict=True)
        )
    if macro == "htmlattrxref" and args:
        text = args[2] if len(args) > 2 and args[2] else args[0]
        element = args[1] if len(args) > 1 else ""
        url = (
            f"{_DOCS}Web/HTML/{'Element/' + element if element else 'Global_attributes'}#{args[0]}"
        )
        return f"[`{text}`]({url})" if linked else text
    if macro in _XREF and args and args[0]:
        text, code = _shown(macro, args)
        if not linked:
            return text
        anchor = args[2] if len(args) > 2 and args[2] else ""
        anchor = anchor if not anchor or anchor.startswith("#") else f"#{anchor}"
        url = f"{_DOCS}{_XREF[macro]}{_slug(args[0], macro)}{anchor}"
        shown = f"`{text}`" if code and "`" not in text else text
        return f"[{shown}]({url})"
    strings = [a for a in args if a]
    return (
        strings[1]
        if len(strings) > 1 and not strings[1].isdigit()
        else (strings[0] if strings else "")
    )


def _banner(macro: str, args: list[str]) -> str:
    """A banner's label and sentence ("" for an `AvailableInWorkers` argument MDN rejects)."""
    if macro in _BANNERS:
        return _BANNERS[macro]
    said = _IN_WORKERS.get(args[0] if args else "")
    return f"Note: {said}" if said else ""


def _banners_only(line: str) -> list[str] | None:
    """The banners of a line of nothing but macros, at least one a banner (None: another)."""
    found: list[str] = []
    for m in MACRO.finditer(line):
        name = m.group(1).lower()
        if name in _BANNERS or name == "availableinworkers":
            found.append(_banner(name, _args(m.group(2))))
    if not found or MACRO.sub("", line).strip():
        return None
    return [b for b in found if b]


def read_line(line: str) -> str:
    """`line` with its macros as the text they render (links outside headings and code spans);
    a line of banners (with the sidebars beside them) is a quote of them, as MDN sets them
    apart from the text (and a page's description is its first paragraph after them)."""
    if (banners := _banners_only(line)) is not None:
        return "> " + " ".join(banners) if banners else ""
    heading = _HEADING.match(line) is not None

    def render(m: re.Match[str]) -> str:
        in_code = line.count("`", 0, m.start()) % 2 == 1
        return _rendered(m.group(1).lower(), _args(m.group(2)), not (heading or in_code))

    out = MACRO.sub(render, line)
    return out.rstrip() if out != line else out


def _table_sections(lines: list[str], code: list[bool]) -> set[int]:
    """Lines of headings whose section holds only `{{Compat}}`/`{{Specifications}}`, and those
    macros' lines (see the module docstring)."""
    blank: set[int] = set()
    for i, line in enumerate(lines):
        if code[i] or not (h := _HEADING.match(line)):
            continue
        body: list[int] = []
        k = i + 1
        while k < len(lines) and not (not code[k] and _HEADING.match(lines[k])):
            if lines[k].strip():
                body.append(k)
            k += 1
        deeper = k < len(lines) and len(_HEADING.match(lines[k]).group(1)) > len(h.group(1))  # type: ignore[union-attr]
        if body and not deeper and all(_only_tables(lines[j]) and not code[j] for j in body):
            blank.update([i, *body])
    return blank


def _only_tables(line: str) -> bool:
    rest = MACRO.sub(lambda m: "" if m.group(1).lower() in _TABLE_MACROS else m.group(0), line)
    return rest != line and not rest.strip()


def read(lines: list[str], code: list[bool] | None = None) -> list[str]:
    """The page's lines with MDN's macros and definition lists read (see the module docstring);
    `code`: which lines are fenced code (computed when not given)."""
    code = fenced_lines(lines) if code is None else code
    blank = _table_sections(lines, code)
    out = []
    for i, line in enumerate(lines):
        if code[i]:
            out.append(line)
        elif i in blank:
            out.append("")
        else:
            if "- :" in line and (m := _DEFINITION.match(line)):
                line = m.group(1) + line[m.end() :]
            out.append(read_line(line) if "{{" in line else line)
    return out
