"""Whether an element's attributes hide it from a reader of the rendered page (issue 31: text
hidden from people reaches agents verbatim). One rule for every format that has elements:
saved HTML pages (htmlpage.py) and the inline HTML and JSX of markdown and MDX
(hidden_elements.py) drop such an element with its content.

Hidden: the `hidden` attribute, `aria-hidden="true"`, or an inline style with `display: none`
or `visibility: hidden`. Not hidden:
- a tab panel (`role="tabpanel"`): saved Docusaurus and sphinx-tabs pages mark the tabs not
  shown `hidden`, and a reader clicks to them;
- screen-reader text (`sr-only`, `visually-hidden` classes): read aloud to the readers who use
  one, so part of the page's text (classes are not looked at);
- a JSX value computed at render time (`hidden={isBeta}`): it cannot be known here.

Classes are not looked at, but for one pattern: Tailwind's dark-mode twin, `hidden dark:block`
(Mintlify's pages show each picture twice, `dark:hidden` for light mode and `hidden dark:block`
for dark mode, whose alt text came out twice): the dark twin goes, the light one stays.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping

# Elements whose content no reader of the rendered page sees, whatever their attributes:
# dropped with it by readable.py, and by hidden_elements.drop_unseen in the plain-text fallback.
UNSEEN_CONTENT = frozenset({"script", "style", "svg", "template", "noscript", "head"})
# An inline style that hides its element.
_HIDING_STYLE = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)",
    re.IGNORECASE,
)
# CSS read as a browser reads it: comments gone, escapes decoded (`\79 ` is `y`).
_CSS_COMMENT = re.compile(r"/\*.*?(?:\*/|$)", re.DOTALL)
_CSS_ESCAPE = re.compile(r"\\(?:([0-9A-Fa-f]{1,6})[ \t\n]?|(.))", re.DOTALL)
# One `key: value` pair of a JSX style object (`{{display: 'none', color: "red"}}`).
_STYLE_PAIR = re.compile(
    r"""[{,]\s*(?:([A-Za-z_$][\w$]*)|"([^"\n]*)"|'([^'\n]*)')\s*:\s*"""
    r"""(?:"([^"\n]*)"|'([^'\n]*)'|`([^`$\n]*)`|([\w.%-]+))"""
)
_UPPER = re.compile(r"[A-Z]")
# Tailwind's display classes (`dark:block`: shown in dark mode).
_DISPLAYS = frozenset(
    "block inline inline-block flex inline-flex grid inline-grid table contents flow-root".split()
)


def hides(attrs: Mapping[str, str]) -> bool:
    """Whether an element with these attributes (names lowercase, a valueless attribute "")
    is hidden from a reader of the rendered page."""
    if not attrs or attrs.get("role") == "tabpanel":
        return False
    if "hidden" in attrs or attrs.get("aria-hidden", "").strip().lower() == "true":
        return True
    classes = attrs.get("class") or attrs.get("classname")
    if classes and "dark:" in classes and _dark_twin(classes.split()):
        return True
    style = attrs.get("style")
    if not style:
        return False
    if "\\" in style or "/*" in style:  # (`displa\79 : none`, `display:/**/none`)
        style = _CSS_ESCAPE.sub(_unescape, _CSS_COMMENT.sub("", style))
    return _HIDING_STYLE.search(style) is not None


def _dark_twin(classes: list[str]) -> bool:
    """Tailwind classes of an element shown in dark mode only (`hidden dark:block`)."""
    return "hidden" in classes and any(c[5:] in _DISPLAYS for c in classes if c[:5] == "dark:")


def _unescape(m: re.Match[str]) -> str:
    if m.group(1) is None:
        return m.group(2)
    code = int(m.group(1), 16)
    return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"


def tag_attrs(
    props: Mapping[str, str | None], exprs: Mapping[str, str], jsx: bool
) -> dict[str, str]:
    """The attributes `hides` reads, from a tag read by inline_tags.parse_tag: names lowercased,
    a valueless attribute "". In JSX (`jsx`), what React renders from an expression value:
    `{true}` is the value "true" (`hidden={true}`, `aria-hidden={true}`), `{false}`, `{null}`
    and `{undefined}` render no attribute, a style object becomes CSS text, and any other
    expression is left out (unknown until render). In a markdown file, HTML's reading: the
    expression's source is the value (`hidden={false}` is still `hidden`)."""
    attrs: dict[str, str] = {}
    for key, value in props.items():
        source = exprs.get(key) if value is None else None
        if source is None:  # (entities are decoded in attribute values, JSX's strings too)
            attrs[key.lower()] = html.unescape(value) if value and "&" in value else value or ""
        elif not jsx:
            attrs[key.lower()] = source
        else:
            inner = source[1:-1].strip()
            if key == "style" and inner.startswith("{"):
                attrs["style"] = _style_css(inner)
            elif inner == "true":
                attrs[key.lower()] = "true"
    return attrs


def _style_css(obj: str) -> str:
    """A JSX style object's literal pairs as CSS text (`{display: 'none'}` -> `display: none`)."""
    pairs = []
    for m in _STYLE_PAIR.finditer(obj):
        key = next(g for g in m.groups()[:3] if g is not None)
        value = next(g for g in m.groups()[3:] if g is not None)
        key = _UPPER.sub(lambda c: "-" + c.group(0).lower(), key)  # (`zIndex` is `z-index`)
        pairs.append(f"{key}: {value}")
    return "; ".join(pairs)
