"""Files that are not markdown, turned into markdown the chunker reads: one converter per suffix.

`load_corpus` reads such a file like any page (source roots, limits, manifests); the worker that
parses it converts it first (`convert_source`), so conversion runs on every core and is cached
with the parse (the parse cache keys the file's original text). Chunk ids keep the file's own
path (`guide/intro.html#intro/setup`); links between converted pages resolve in xref like links
between markdown pages. Converters are pure functions of the text: deterministic.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from .discover import HTML_SUFFIXES, RST_SUFFIXES
from .manifest import SourceFile


@dataclasses.dataclass(frozen=True)
class Converted:
    text: str  # markdown
    title: str | None  # the page title found in the file, if any
    anchors: tuple[tuple[int, str], ...] = ()  # (0-based line of `text`, element id)


def _html(path: str, text: str) -> Converted:
    from .htmlpage import html_to_markdown

    done = html_to_markdown(text)
    return Converted(done.text, done.title, done.anchors)


def _rst(path: str, text: str) -> Converted:
    from .rst import rst_to_markdown

    done = rst_to_markdown(path, text)
    return Converted(done.text, done.title, done.anchors)


CONVERTERS: dict[str, Callable[[str, str], Converted]] = {
    **{suffix: _html for suffix in HTML_SUFFIXES},
    **{suffix: _rst for suffix in RST_SUFFIXES},
}


def converter_for(path: str) -> Callable[[str, str], Converted] | None:
    lower = path.lower()
    for suffix, convert in CONVERTERS.items():
        if lower.endswith(suffix):
            return convert
    return None


def convert_source(sf: SourceFile) -> SourceFile:
    """`sf` with its text converted to markdown when its suffix has a converter; the title of
    the file (a manifest's or frontmatter's wins) becomes the page title."""
    convert = converter_for(sf.path)
    if convert is None:
        return sf
    done = convert(sf.path, sf.text)
    return dataclasses.replace(
        sf,
        text=done.text,
        body=done.text,
        title=sf.title or done.title,
        anchors=done.anchors,
    )
