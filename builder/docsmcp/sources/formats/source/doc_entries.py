"""The API entry a reader of source code writes for a documented declaration (Java, Kotlin,
Swift, Dart, C#, PHP, Ruby): one home for the registry's limits on its fields and for the
summary a markdown doc comment gives, so the readers cannot drift apart on either.
"""

from __future__ import annotations

from docsmcp.model.api import ApiEntry, Example, Parameter
from docsmcp.model.api_fields import MAX_DESCRIPTION_CHARS, MAX_RETURNS_CHARS, MAX_SIGNATURE_CHARS
from docsmcp.model.text import truncate


def dotted_category(name: str) -> str:
    """The category of a dotted entry name: its owner (`Foo.Bar` of `Foo.Bar.baz`), a
    top-level name its own."""
    return ".".join(name.split(".")[:-1]) or name


def source_entry(
    *,
    name: str,
    category: str,
    kind: str,
    signature: str,
    description: str,
    parameters: tuple[Parameter, ...],
    returns: str,
    path: str,
    line_start: int,
    line_end: int,
    examples: tuple[Example, ...] = (),
    inherited: bool = False,
) -> ApiEntry:
    """An entry whose signature, description and returns are cut to the registry's limits;
    the chunk is found by the build (chunk_id empty here)."""
    return ApiEntry(
        name=name,
        category=category,
        kind=kind,
        signature=truncate(signature, MAX_SIGNATURE_CHARS),
        description=truncate(description, MAX_DESCRIPTION_CHARS),
        parameters=parameters,
        returns=truncate(returns, MAX_RETURNS_CHARS),
        examples=examples,
        chunk_id="",
        path=path,
        line_start=line_start,
        line_end=line_end,
        inherited=inherited,
    )


def summary_lines(lines: list[str]) -> list[str]:
    """The first paragraph of a markdown doc comment (dartdoc's and DocC's summary), each
    line stripped: a code fence, quote or heading before it is passed over, one after it ends
    it."""
    para: list[str] = []
    for line in lines:
        if not line.strip():
            if para:
                break
            continue
        if line.lstrip().startswith(("```", "~~~", ">", "#")):
            if para:
                break
            continue
        para.append(line.strip())
    return para
