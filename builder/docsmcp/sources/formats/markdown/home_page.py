"""A home page written as frontmatter: VuePress' `home: true` (`heroText`, `tagline`, `actions`,
`features: [{title, details}]`, `footer`) and VitePress' `layout: home` (`hero: {name, text,
tagline, actions}`, `features`). The theme renders those values as the page (a title, a
tagline, buttons, a grid of features under their titles), and its markdown is often empty:
VuePress' own home page had no text and was dropped from the bundle without a word. The
values become the page's first lines, as the theme lays them out: the hero's title as the h1,
the tagline, the buttons as links, each feature as an h2 (the theme's tag) over its details,
the footer last; they map to the frontmatter's first line. The page's own markdown follows,
as the theme shows it, below the features.
"""

from __future__ import annotations

from dataclasses import replace

from docsmcp.model.source import SourceFile

# A home page lists a few features; a frontmatter that lists more is read this far.
MAX_FEATURES = 100


def _text(value: object) -> str:
    """A frontmatter value shown as text: a string on one line, else nothing."""
    return " ".join(value.split()) if isinstance(value, str) else ""


def home_lines(frontmatter: dict[str, object]) -> list[str]:
    """The markdown lines a home page's frontmatter renders as ([] for any other page, or a
    home page whose frontmatter shows nothing but a title)."""
    if frontmatter.get("home") is not True and frontmatter.get("layout") != "home":
        return []
    found = frontmatter.get("hero")
    hero: dict[str, object] = found if isinstance(found, dict) else {}
    lines: list[str] = []
    for tagline in (hero.get("text"), frontmatter.get("tagline") or hero.get("tagline")):
        lines += [_text(tagline), ""] if _text(tagline) else []
    actions = frontmatter.get("actions", hero.get("actions"))
    links = [
        f"[{_text(a.get('text'))}]({_text(a.get('link'))})"
        if _text(a.get("link"))
        else _text(a.get("text"))
        for a in (actions if isinstance(actions, list) else [])
        if isinstance(a, dict) and _text(a.get("text"))
    ]
    lines += [" · ".join(links), ""] if links else []
    features = frontmatter.get("features")
    for feature in (features if isinstance(features, list) else [])[:MAX_FEATURES]:
        if isinstance(feature, dict):
            name, details = _text(feature.get("title")), _text(feature.get("details"))
            lines += [f"## {name}", ""] if name else []
            lines += [details, ""] if details else []
    footer = _text(frontmatter.get("footer"))
    lines += [footer, ""] if footer else []
    if not lines:
        return []
    title = _text(frontmatter.get("heroText")) or _text(hero.get("name"))
    title = title or _text(frontmatter.get("title"))
    return [f"# {title}", "", *lines] if title else lines


def with_home_text(source: SourceFile) -> SourceFile:
    """`source` with its home page frontmatter's text before its body (see the module
    docstring); `source` itself when it is no such page."""
    frontmatter = source.frontmatter_with("home", "layout")
    lines = home_lines(frontmatter) if frontmatter else []
    if not lines:
        return source
    body = source.body.split("\n")
    line_map = list(source.line_map) if source.line_map else list(range(len(body)))
    first = 1 if len(line_map) > 1 else 0  # (the frontmatter's first line, after its `---`)
    return replace(
        source,
        body="\n".join([*lines, *body]),
        line_map=tuple([*[first] * len(lines), *line_map]),
    )
