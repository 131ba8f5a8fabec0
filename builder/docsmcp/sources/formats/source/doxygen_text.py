"""A Doxygen comment read as Doxygen shows it: its brief, its text in markdown, and the
commands that make fields of it (`@param`, `@return`, `@retval`, `@sa`, `@ingroup`, …).

Commands are written `@cmd` or `\\cmd`. What a page shows:
- `@brief` (else, as with JAVADOC_AUTOBRIEF off, the first paragraph) is the brief;
- `@param[in] name text`, `@tparam`, `@return(s)`, `@retval value text` are fields (the API
  entry's parameters and returns) and a list under a bold label on the page;
- `@note`, `@warning`, `@since`, `@deprecated`, `@sa`/`@see`, `@pre`, `@post`, `@remark(s)`,
  `@attention`, `@bug`, `@todo`, `@par Title` (and ALIASES such as GLFW's `@errors`, which
  expand to `@par Errors`) start a paragraph under a bold label, until a blank line or the next
  such command;
- `@code{.c}` … `@endcode` and `@verbatim` … `@endverbatim` are code blocks;
- inline: `@ref name "text"`, `@link name text @endlink` (links, by `Links`), `\\p`/`\\a`/`\\c`/
  `\\e`/`\\em`/`\\b` words, `@n` a line break, `@li`/`@arg` list items;
- `@internal`/`@private` mark what is left out; `@ingroup`, `@defgroup`, `@addtogroup`,
  `@{`/`@}`, `@file`, `@fn`, `@def` and friends are read by doxygen_decls.py and shown not.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from docsmcp.sources.formats.markdown.fences import code_block

# name -> (link target, shown text): the project's symbols, pages and sections.
Links = Mapping[str, tuple[str, str]]

_CMD = r"[@\\]"
PARAGRAPHS = {
    "note": "Note",
    "warning": "Warning",
    "since": "Since",
    "deprecated": "Deprecated",
    "sa": "See also",
    "see": "See also",
    "pre": "Precondition",
    "post": "Postcondition",
    "remark": "Remarks",
    "remarks": "Remarks",
    "attention": "Attention",
    "bug": "Bug",
    "todo": "Todo",
    "invariant": "Invariant",
    "throws": "Throws",
    "throw": "Throws",
    "exception": "Throws",
    "author": "Author",
    "authors": "Authors",
    "version": "Version",
    "copyright": "Copyright",
    "details": "",
}
# Commands whose line is structure, read elsewhere, never shown.
_HIDDEN = frozenset(
    "ingroup defgroup addtogroup weakgroup file fn def var typedef struct class union enum "
    "namespace interface name mainpage page subpage section subsection subsubsection "
    "paragraph anchor internal private privatesection protected public static hideinitializer "
    "showinitializer nosubgrouping relates related relatesalso memberof cond endcond "
    "callgraph callergraph hidecallgraph hidecallergraph headerfile overload addindex "
    "image dotfile cite example dontinclude include includelineno skip skipline until line "
    "copydoc copybrief copydetails showrefs hiderefs".split()
)
_LINE_CMD = re.compile(_CMD + r"([a-zA-Z]+)(\[[^\]\n]*\])?(?=[\s{]|$)")
_WORD = re.compile(_CMD + r"(p|a|c|e|em|b)\s+([^\s,;:!?()]+(?:\([^\s)]*\))?)")
_REF = re.compile(
    _CMD
    + r"ref\s+([\w:.#~-]+?(?:\(\))?)"
    # (ends before a space, punctuation, a sentence's full stop; a `:` but not a `::`)
    + r"(?=[\s,;!?)\]]|(?<!:):(?!:)|\.(?:\s|$)|$)"
    + r'(?:\s+"([^"\n]*)")?'
)
_LINK = re.compile(_CMD + r"link\s+([\w:.#~-]+)\s+(.*?)\s*" + _CMD + r"endlink", re.S)
# (`[text](@ref name)`; documenter.py, for Julia's Documenter, has written it `@ref#name`)
_MD_REF = re.compile(r"\]\(\s*" + _CMD + r"ref(?:\s+|#)([\w:.#~-]+)\s*\)")
_REF_BROKEN = re.compile(r"(" + _CMD + r"(?:ref|link))[ \t]*\n[ \t]*")
_BREAK = re.compile(_CMD + r"n(?![a-zA-Z])")
_CODE = re.compile(r"^\s*" + _CMD + r"code(?:\{\.?(\w+)\})?\s*$")
_CODE_END = re.compile(r"^\s*" + _CMD + r"endcode\b")
_VERB = re.compile(r"^\s*" + _CMD + r"verbatim\s*$")
_VERB_END = re.compile(r"^\s*" + _CMD + r"endverbatim\b")
_MD_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_ESCAPED = re.compile(r"\\([@\\&$#<>%.|\"])")


@dataclass(frozen=True)
class Param:
    name: str
    direction: str  # "in", "out", "in,out" or ""
    text: str


@dataclass
class Doc:
    brief: str = ""
    lines: list[str] = field(default_factory=list)  # the detailed text, markdown
    params: list[Param] = field(default_factory=list)
    tparams: list[Param] = field(default_factory=list)
    returns: str = ""
    retvals: list[Param] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)  # @ingroup names
    hidden: bool = False  # @internal / @private
    deprecated: str | None = None
    commands: dict[str, str] = field(default_factory=dict)  # structural commands' arguments

    @property
    def documented(self) -> bool:
        return bool(self.brief or self.lines or self.params or self.returns)


def expand_aliases(text: str, aliases: Mapping[str, str]) -> str:
    """`text` with the Doxyfile's ALIASES written out (`^^` a new line, as Doxygen reads it)."""
    if not aliases:
        return text

    def sub(m: re.Match[str]) -> str:
        value = aliases.get(m.group(1))
        return m.group(0) if value is None else value.replace("^^", "\n")

    return re.sub(_CMD + r"(\w+)\b", sub, text)


def inline(text: str, links: Links, escapes: bool = True) -> str:
    """A line's inline commands as markdown: refs and links, `\\p` words, and (in a comment,
    not in a markdown page, where `\\#` is markdown's own) Doxygen's escapes."""

    def ref(m: re.Match[str]) -> str:
        name = m.group(1).removesuffix("()")
        target, shown = links.get(name, ("", ""))
        label = m.group(2) or shown or m.group(1)
        if not target:
            return f"`{label}`" if m.group(2) is None else label
        return f"[{label}]({target})"

    def link(m: re.Match[str]) -> str:
        target = links.get(m.group(1).removesuffix("()"), ("", ""))[0]
        return f"[{m.group(2)}]({target})" if target else m.group(2)

    def word(m: re.Match[str]) -> str:
        kind, w = m.group(1), m.group(2)
        stop = "." if w.endswith(".") else ""  # (a sentence's full stop is no part of it)
        w = w.removesuffix(".")
        if kind in ("p", "c"):
            return f"`{w}`{stop}"
        return (f"**{w}**" if kind == "b" else f"*{w}*") + stop

    def md_ref(m: re.Match[str]) -> str:
        target = links.get(m.group(1), ("", ""))[0]
        return f"]({target or '#' + m.group(1)})"

    text = _MD_REF.sub(md_ref, text)
    text = _LINK.sub(link, text)
    text = _REF.sub(ref, text)
    text = _WORD.sub(word, text)
    text = _BREAK.sub("  ", text)
    return _ESCAPED.sub(r"\1", text) if escapes else text


def parse(
    text: str, links: Links, aliases: Mapping[str, str] | None = None, code_lang: str = ""
) -> Doc:
    """The comment `text` (markers stripped) read as Doxygen reads it (module docstring)."""
    doc = Doc()
    text = expand_aliases(text, aliases or {})
    # (`@ref` at a line's end names what starts the next line)
    text = _REF_BROKEN.sub(r"\1 ", text)
    out: list[str] = []  # the text's lines as markdown
    # Where the running paragraph goes: the text, or a field being continued.
    sink: Callable[[str], None] | None = None
    code: list[str] | None = None
    lang = ""
    end_code: re.Pattern[str] = _CODE_END
    lines = text.split("\n")
    brief: list[str] | None = None
    fence = ""  # a markdown fence open in the comment (kept as written)
    for raw in lines:
        if fence:
            out.append(raw.rstrip())
            fence = "" if raw.strip().startswith(fence) else fence
            continue
        if code is None and (opened := _MD_FENCE.match(raw)):
            fence = opened.group(1)
            out.append(raw.strip())
            sink = brief = None
            continue
        if code is not None:
            if end_code.match(raw):
                out.extend(code_block("", lang, _dedent(code)))
                code = None
            else:
                code.append(raw)
            continue
        m = _CODE.match(raw)
        if m or _VERB.match(raw):
            lang = (m.group(1) or code_lang).lower() if m else "text"
            lang = {"cpp": "cpp", "c": "c", "py": "python"}.get(lang, lang) if m else lang
            end_code = _CODE_END if m else _VERB_END
            code = []
            sink = None
            brief = None
            continue
        line = raw.strip()
        if not line:
            sink = None
            brief = None
            out.append("")
            continue
        cmd = _LINE_CMD.match(line)
        if cmd is not None:
            name, option = cmd.group(1), (cmd.group(2) or "")[1:-1]
            rest = line[cmd.end() :].strip()
            if name == "brief" or name == "short":
                doc.brief = inline(rest, links)
                brief = [doc.brief]
                sink = _appender(doc, "brief", links)
                continue
            if name in ("param", "tparam"):
                pname, _, ptext = rest.partition(" ")
                p = Param(pname, option.replace(" ", ""), inline(ptext.strip(), links))
                (doc.params if name == "param" else doc.tparams).append(p)
                sink = _appender(doc, name, links)
                continue
            if name in ("return", "returns", "result"):
                doc.returns = inline(rest, links)
                sink = _appender(doc, "returns", links)
                continue
            if name == "retval":
                value, _, vtext = rest.partition(" ")
                doc.retvals.append(Param(value, "", inline(vtext.strip(), links)))
                sink = _appender(doc, "retval", links)
                continue
            if name in ("internal", "private"):
                doc.hidden = True
                continue
            if name == "ingroup":
                doc.groups.extend(rest.split())
                continue
            if name in _HIDDEN:
                doc.commands.setdefault(name, rest)
                continue
            if name in ("li", "arg"):
                out.append(f"- {inline(rest, links)}")
                sink = None
                continue
            if name == "par" or name in PARAGRAPHS:
                label = rest if name == "par" else PARAGRAPHS[name]
                shown = "" if name == "par" else inline(rest, links)
                if name in ("sa", "see") and "](" not in shown:
                    shown = _autolink(shown, links)
                if name == "deprecated":
                    doc.deprecated = shown
                out.append("")
                out.append(f"**{label}:** {shown}".rstrip() if label else shown)
                sink = None
                continue
        if brief is not None:  # (`@brief` runs to the paragraph's end)
            doc.brief += " " + inline(line, links)
            continue
        if sink is not None:
            sink(line)
            continue
        if cmd is not None and cmd.group(1) in ("{", "}"):
            continue
        if line in ("@{", "@}", "\\{", "\\}"):
            continue
        # (indentation in a comment is layout, tinyxml2's tabs: no indented code blocks)
        out.append(inline(line, links))
    if code is not None:  # (unclosed: to the comment's end)
        out.extend(code_block("", lang, _dedent(code)))
    doc.lines = _tidy(out)
    if not doc.brief:  # the first paragraph is the brief (what the entry describes)
        para: list[str] = []
        for line in doc.lines:
            if not line.strip() or line.startswith(("```", "**", "- ")):
                break
            para.append(line.strip())
        doc.brief = " ".join(para)
        doc.lines = doc.lines[len(para) :] if para else doc.lines
        doc.lines = _tidy(doc.lines)
    return doc


def _autolink(text: str, links: Links) -> str:
    """The names of a "See also" line that are the project's symbols as links, as Doxygen links
    them without `@ref` (SDL's `\\sa SDL_DestroyWindow`)."""

    def link(m: re.Match[str]) -> str:
        target = links.get(m.group(1), ("", ""))[0]
        return f"[{m.group(0)}]({target})" if target else m.group(0)

    return re.sub(r"(?<![\w`\[#/.])([A-Za-z_][\w:]*)(\(\))?(?![\w`\]])", link, text)


def _appender(doc: Doc, what: str, links: Links) -> Callable[[str], None]:
    """What continues a field on its next lines."""

    def add(line: str) -> None:
        text = inline(line, links)
        if what == "brief":
            doc.brief = f"{doc.brief} {text}".strip()
        elif what == "returns":
            doc.returns = f"{doc.returns} {text}".strip()
        else:
            found = {"param": doc.params, "tparam": doc.tparams, "retval": doc.retvals}[what]
            if found:
                p = found[-1]
                found[-1] = Param(p.name, p.direction, f"{p.text} {text}".strip())

    return add


def _dedent(lines: list[str]) -> list[str]:
    widths = [len(x) - len(x.lstrip()) for x in lines if x.strip()]
    cut = min(widths, default=0)
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return [x[cut:].rstrip() for x in lines]


def _tidy(lines: list[str]) -> list[str]:
    """Blank lines trimmed at the ends and never two in a row."""
    out: list[str] = []
    for line in lines:
        if not line.strip() and (not out or not out[-1].strip()):
            continue
        out.append(line)
    while out and not out[-1].strip():
        out.pop()
    return out
