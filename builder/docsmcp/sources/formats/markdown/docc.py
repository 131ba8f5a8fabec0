"""A DocC documentation catalog's pages (`Sources/Module/Module.docc/*.md`, `*.tutorial`) read as
DocC renders them, and DocC's inline syntax for the Swift reader's comments (swiftdoc.py).

- **Symbol links** ``` ``Option`` ```, ``` ``ParsableCommand/run()-7p2fr`` ```: a code span of
  the name DocC shows (the last path component, without its disambiguation suffix: `run()`), and
  an object reference to the symbol, qualified with the module
  (`ArgumentParser.ParsableCommand.run()`),
  which the build resolves to the Swift page's section (swiftdoc.py's `object:` anchors).
- **Article links** `<doc:GettingStarted>`, `<doc:Article#Heading>`, `<doc:/tutorials/X>`: a link
  to the article, titled by its title, through the link table the build writes above the page
  (swift_package.resolve: catalogs' article names are flat); unknown, the name as text.
- **Directives** `@Name(args) { … }`: reduced to what a reader sees. `@Metadata`, `@Options`,
  `@Comment` and `@Redirected` leave nothing but the title `@DisplayName` gives (and
  `@PageKind`); a tutorial's `@Tutorials(name:)`, `@Intro(title:)` are its title, `@Chapter`,
  `@Section(title:)`, `@Assessments` headings, `@Step` a numbered label, `@Code(name:file:)` the
  file it shows, `@Image`/`@Video` their alt text, `@TutorialReference(tutorial:)` a link,
  `@Tab("x")` a label; `@Row`, `@Column`, `@TabNavigator`, `@ContentAndMedia`, `@Steps`, …
  leave their content, dedented (four columns of a directive's body would read as code).
- `## Topics` and its `### Group` lists stay: they are the page's index, each item a link.

Every line keeps its line: a page converts line for line (the link table's line dropped), so the
chunks' line ranges are the file's.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, field

from docsmcp.model.source import Converted
from docsmcp.sources.formats.markdown.fences import code_block

# The line swift_package.resolve writes above a catalog page: its link table as JSON.
HEADER = "<!-- docsmcp-docc "
_HEADER_END = " -->"
SYMBOL_LINK = re.compile(r"``([^`\n]+?)``")
DOC_LINK = re.compile(r"<doc:([^<>\s]+)>")
_DIRECTIVE = re.compile(r"^(\s*)@([A-Z][A-Za-z]*)\s*((?:\(|\{).*)?$")
_ARG = re.compile(r'(\w+)\s*:\s*("(?:[^"\\]|\\.)*"|[^,()]+)')
_FIRST_ARG = re.compile(r'^\(\s*"((?:[^"\\]|\\.)*)"')
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_DISAMBIGUATION = re.compile(
    r"-(?:[0-9a-z]{4,6}|swift\.[\w.]+|struct|class|enum|protocol|func|property|init|case|method|typealias|var)$"
)
# Directives whose whole block shows nothing (but what they say about the page).
MAX_ARGUMENT_LINES = 40  # lines one directive's arguments may take
_HIDDEN = frozenset({"Metadata", "Options", "Comment", "Redirected", "XcodeRequirement"})
_HEADINGS = {"Intro": 1, "Tutorials": 1, "Chapter": 2, "Section": 2, "Volume": 2}
_LABELS = {
    "Assessments": "## Check Your Understanding",
    "Resources": "## Resources",
    "DeprecationSummary": "**Deprecated:**",
    "Documentation": "**Documentation**",
    "SampleCode": "**Sample Code**",
    "Downloads": "**Downloads**",
    "Videos": "**Videos**",
    "Forums": "**Forums**",
}


@dataclass(frozen=True)
class Links:
    """What the build found around a catalog page: article name -> (relative link, title)."""

    module: str
    docs: dict[str, tuple[str, str]]
    # a tutorial's `@Code(file:)` files (their name -> text), shown under their step as DocC does
    code: dict[str, str] = field(default_factory=dict)


def header_line(links: Links) -> str:
    data: dict[str, object] = {
        "module": links.module,
        "docs": {k: list(v) for k, v in sorted(links.docs.items())},
    }
    if links.code:
        data["code"] = dict(sorted(links.code.items()))
    return HEADER + json.dumps(data, ensure_ascii=False, sort_keys=True) + _HEADER_END


def read_header(text: str) -> tuple[Links | None, str, int]:
    """The link table above `text`, the text without it, and the lines it took (0 or 1)."""
    if not text.startswith(HEADER):
        return None, text, 0
    line, _, rest = text.partition("\n")
    try:
        data = json.loads(line[len(HEADER) : -len(_HEADER_END)])
        docs = {k: (str(v[0]), str(v[1])) for k, v in data.get("docs", {}).items()}
        code = {str(k): str(v) for k, v in data.get("code", {}).items()}
        return Links(str(data.get("module", "")), docs, code), rest, 1
    except (ValueError, TypeError, IndexError, AttributeError):
        return None, rest, 1


def module_of(path: str) -> str:
    """The module a catalog documents: its folder's name (`ArgumentParser.docc`), or the
    target folder above a `Documentation.docc`/`Docs.docc` (`Sources/Logging/Docs.docc`)."""
    parts = path.split("/")
    for k in range(len(parts) - 1, -1, -1):
        if parts[k].lower().endswith(".docc"):
            stem = parts[k][: -len(".docc")]
            if stem.lower() in ("documentation", "docs", "doc") and k > 0:
                return parts[k - 1]
            return stem
    return ""


def in_catalog(path: str) -> bool:
    """Whether `path` is a page of a DocC catalog (`….docc/…/*.md` or a `.tutorial`)."""
    lower = path.lower()
    return (".docc/" in lower and lower.endswith(".md")) or lower.endswith(".tutorial")


def symbol_name(link: str, module: str, owner: str = "") -> str:
    """The qualified name a symbol link names: ``Option/init(name:)-4yske`` in the module
    ArgumentParser -> `ArgumentParser.Option.init(name:)`; a relative one (``run()`` on a
    type's page, `owner`) is read below its owner."""
    parts = [_DISAMBIGUATION.sub("", p) for p in link.strip().lstrip("/").split("/") if p]
    if parts and parts[0] == "documentation":
        parts = parts[1:]
    if not parts:
        return ""
    if parts[0] != module and module:
        if owner and len(parts) == 1 and parts[0][:1].islower():
            parts = [*owner.split("."), *parts]
        parts = [module, *parts]
    return ".".join(parts)


def inline(line: str, links: Links | None, module: str, owner: str = "") -> tuple[str, list[str]]:
    """`line` with its symbol and article links as DocC shows them, and the symbols named."""
    names: list[str] = []
    if "``" in line:

        def symbol(m: re.Match[str]) -> str:
            name = symbol_name(m.group(1), module, owner)
            if name:
                names.append(name)
            shown = _DISAMBIGUATION.sub("", m.group(1).rstrip("/").rsplit("/", 1)[-1])
            return f"`{shown}`"

        line = SYMBOL_LINK.sub(symbol, line)
    if "<doc:" in line:

        def doc(m: re.Match[str]) -> str:
            target = m.group(1)
            name, _, heading = target.partition("#")
            key = name.rstrip("/").rsplit("/", 1)[-1]
            found = links.docs.get(key) if links is not None else None
            if found is None:
                return heading.replace("-", " ") if not key and heading else key
            href, title = found
            anchor = f"#{_slug(heading)}" if heading else ""
            return f"[{title}]({href}{anchor})"

        line = DOC_LINK.sub(doc, line)
    return line, names


def _slug(heading: str) -> str:
    return re.sub(r"[^\w-]", "", heading.strip().lower().replace(" ", "-"))


def args(text: str) -> dict[str, str]:
    """A directive's arguments (`(title: "X", file: y.swift)`) as strings; the unnamed
    first one (`@Tab("Swift")`, `@DisplayName("X")`) under ``."""
    out = {}
    first = _FIRST_ARG.match(text or "")
    if first:
        out[""] = first.group(1)
    for m in _ARG.finditer(text or ""):
        value = m.group(2).strip()
        out.setdefault(m.group(1), value[1:-1] if value.startswith('"') else value)
    return out


def title_of(text: str) -> str:
    """An article's title (`# Title`, ``# ``Symbol`` `` the symbol's name, `@DisplayName`,
    a tutorial's `@Intro(title:)` or `@Tutorials(name:)`), or ``."""
    shown = re.search(r'@DisplayName\(\s*"((?:[^"\\]|\\.)*)"', text)
    if shown:
        return shown.group(1)
    for line in text.split("\n", 200)[:200]:
        if line.startswith("# "):
            title = line[2:].strip()
            m = SYMBOL_LINK.fullmatch(title)
            return m.group(1).rsplit("/", 1)[-1] if m else title
        d = _DIRECTIVE.match(line)
        if d and d.group(2) in ("Intro", "Tutorials", "Chapter"):
            a = args(d.group(3) or "")
            if a.get("title") or a.get("name"):
                return a.get("title") or a.get("name") or ""
    return ""


@dataclass
class _Block:
    name: str
    indent: int  # the columns its content is dedented by
    hidden: bool


def docc_to_markdown(path: str, text: str) -> Converted:
    """A catalog page as DocC renders it (see the module's docstring)."""
    links, text, skipped = read_header(text)
    module = links.module if links is not None and links.module else module_of(path)
    lines = text.split("\n")
    out: list[str] = []
    refs: list[tuple[int, str]] = []
    stack: list[_Block] = []
    fence = ""
    steps = 0
    title: str | None = None
    owner = ""
    pending_args = ""  # a directive's arguments continued on the lines below
    pending_lines = 0
    for i, raw in enumerate(lines):
        hidden = bool(stack) and stack[-1].hidden  # (a block is hidden with its parent)
        cut = stack[-1].indent if stack else 0
        line = _dedent(raw, cut)
        if pending_args:
            pending_args += " " + raw.strip()
            pending_lines += 1
            out.append("")
            # (arguments never closed end at MAX_ARGUMENT_LINES: no quadratic rescans)
            if (
                pending_args.count("(") <= pending_args.count(")")
                or pending_lines >= MAX_ARGUMENT_LINES
            ):
                line = pending_args
                pending_args = ""
                d_line = _directive_line(line, stack, lines, i)
                out[-1], title, steps = _open(d_line, stack, title, steps, links, module)
            continue
        if fence:
            out.append("" if hidden else line)
            if _FENCE.match(line) and line.strip().startswith(fence):
                fence = ""
            continue
        if _FENCE.match(line):
            fence = _FENCE.match(line).group(1)  # type: ignore[union-attr]
            out.append("" if hidden else line)
            continue
        stripped = line.strip()
        if stripped == "}" and stack:
            stack.pop()
            out.append("")
            continue
        d = _DIRECTIVE.match(line)
        if d is not None:
            rest = d.group(3) or ""
            if rest.count("(") > rest.count(")"):
                pending_args, pending_lines = line, 0
                out.append("")
                continue
            d_line = _directive_line(line, stack, lines, i)
            shown, title, steps = _open(d_line, stack, title, steps, links, module)
            out.append(shown)
            continue
        if hidden:
            out.append("")
            continue
        if line.startswith("# ") and not any(out):
            m = SYMBOL_LINK.fullmatch(line[2:].strip())
            if m is not None:  # (an extension file or the module's page: `# ``Module/Type`` `)
                owner = ".".join(symbol_name(m.group(1), module).split(".")[1:])
                refs.append((len(out), symbol_name(m.group(1), module)))
                shown_title = owner or module
                title = title or shown_title
                out.append(f"# {shown_title}")
                continue
        shown, names = inline(line, links, module, owner)
        refs += [(len(out), n) for n in names]
        out.append(shown)
    if title is None:
        title = title_of(text) or None
    # (a `@Code` line shows its file's code: more lines, each at the directive's line)
    lines: list[str] = []
    line_map: list[int] = []
    moved: list[int] = []  # the first line of each item of `out`
    for k, shown in enumerate(out):
        moved.append(len(lines))
        parts = shown.split("\n")
        lines += parts
        line_map += [skipped + k] * len(parts)
    refs = [(moved[r], n) for r, n in refs]
    return Converted("\n".join(lines), title, (), tuple(line_map), (), tuple(refs))


@dataclass(frozen=True)
class _Line:
    indent: str
    name: str
    args: dict[str, str]
    opens: bool  # whether a `{` opens a body on this line
    closes: bool  # whether the body closes on the same line (`@Foo { }`)
    body_indent: int  # the columns the body's lines are dedented by


def _directive_line(line: str, stack: list[_Block], lines: list[str], i: int) -> _Line:
    d = _DIRECTIVE.match(line)
    assert d is not None
    rest = (d.group(3) or "").rstrip()
    paren = rest[: rest.rfind(")") + 1] if rest.startswith("(") else ""
    after = rest[len(paren) :].strip()
    opens = after.startswith("{")
    inline_body = opens and after.endswith("}")
    # The body's indent: that of its first line with text (DocC dedents a directive's body).
    body_indent = 0
    if opens and not inline_body:
        for nxt in lines[i + 1 : i + 40]:
            if nxt.strip():
                cut = stack[-1].indent if stack else 0
                body_indent = cut + _width(_dedent(nxt, cut))
                break
    return _Line(d.group(1), d.group(2), args(paren), opens, inline_body, body_indent)


def _open(
    d: _Line,
    stack: list[_Block],
    title: str | None,
    steps: int,
    links: Links | None,
    module: str,
) -> tuple[str, str | None, int]:
    """What a directive's line shows; opens its block."""
    hidden = (bool(stack) and stack[-1].hidden) or d.name in _HIDDEN
    if d.opens and not d.closes:
        stack.append(_Block(d.name, d.body_indent, hidden))
    a = d.args
    if d.name == "DisplayName":  # (inside `@Metadata`)
        return "", a.get("") or title, steps
    if hidden:
        return "", title, steps
    if d.name in _HEADINGS:
        text = a.get("title") or a.get("name") or ""
        level = _HEADINGS[d.name]
        if level == 1 and title is not None:  # (a `@Tutorials` page's `@Intro`)
            level = 2
        elif level == 1 and text:
            title = text
        return (f"{'#' * level} {text}" if text else ""), title, steps
    if d.name == "Steps":
        return "", title, 0
    if d.name == "Step":
        steps += 1
        return f"**Step {steps}.**", title, steps
    if d.name == "Code":
        name, file = a.get("name", ""), a.get("file", "")
        shown = f"Code: `{name}` ({file})" if name else ""
        code = links.code.get(file) if links is not None else None
        if code is not None:
            language = posixpath.splitext(name or file)[1].lstrip(".") or "swift"
            block = code_block("", language, code.rstrip("\n").split("\n"))
            shown = "\n".join([f"Code: `{name or file}`", "", *block, ""])
        return shown, title, steps
    if d.name in ("Image", "Video"):
        alt = a.get("alt", "")
        return alt, title, steps
    if d.name == "TutorialReference":
        target = a.get("tutorial", "")
        shown, _ = inline(f"<{target}>" if target.startswith("doc:") else target, links, module)
        return (f"- {shown}" if shown else ""), title, steps
    if d.name in ("Tab", "Choice", "Justification"):
        label = a.get("") or a.get("reaction") or ""
        if d.name == "Choice":
            label = "Choice" + (" (correct)" if a.get("isCorrect") == "true" else "")
        return (f"**{label}**" if label else ""), title, steps
    if d.name in _LABELS:
        return _LABELS[d.name], title, steps
    if d.name in ("Link", "CallToAction"):
        url = a.get("destination") or a.get("url") or ""
        text = a.get("purpose") or a.get("label") or url
        return (f"[{text}]({url})" if url else ""), title, steps
    if d.name == "Snippet":  # (the file's code, where the build found it: swift_package)
        path = a.get("path", "")
        key = f"snippet:{path}" + (f"#{a['slice']}" if a.get("slice") else "")
        code = links.code.get(key) if links is not None else None
        if code is not None:
            block = code_block("", "swift", code.split("\n"))
            return (
                "\n".join([f"Snippet: `{path.rsplit('/', 1)[-1]}`", "", *block, ""]),
                title,
                steps,
            )
        return (f"Snippet: `{path}`" if path else ""), title, steps
    return "", title, steps


def _width(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _dedent(line: str, columns: int) -> str:
    if columns <= 0:
        return line
    lead = _width(line)
    return line[min(lead, columns) :]


def catalog_folder(path: str) -> str:
    """The `.docc` folder holding `path` (``` when none)."""
    parts = path.split("/")
    for k in range(len(parts) - 1, -1, -1):
        if parts[k].lower().endswith(".docc"):
            return "/".join(parts[: k + 1])
    return posixpath.dirname(path) if path.lower().endswith(".tutorial") else ""
