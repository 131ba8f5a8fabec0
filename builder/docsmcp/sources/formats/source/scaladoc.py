"""A Scala source file as the pages Scaladoc publishes of it (one page per file, as for Kotlin:
the file is the unit of ids, line maps and the parse cache).

- **Title.** A file whose types all bear one name (a class and its companion, `Functor.scala`)
  is that type's page, `# cats.Functor`; a package object's file is `# package cats.data`; any
  other file is `# cats.syntax (all.scala)`, its declarations one level down.
- **Sections.** Each declaration Scaladoc lists is a section named as code calls it
  (`Functor.map`, `Decoder.Result`, an enum's `Color.Red`): classes, case classes, traits,
  objects, enums and their cases, `def`, `val`, `var`, `type`, `given`s (Scala 3's `given_T`
  where unnamed) and `extension` methods (by their owner, the clause in the declaration). A
  companion object is shown with its class, as Scaladoc's page toggles them: its members are
  `Decoder.decodeString`, its own text a section `object Decoder`, and the class keeps the
  entry. A case class's parameters are its `val`s, described by `@param`.
- **A section** holds the declaration without body (an opaque type without its right side),
  the deprecation (`@deprecated(…)` or the tag), the comment (scaladoc_text.py), then Type
  parameters, Parameters, Returns, Throws, Examples, Notes, See also and Since.
- **Hidden as Scaladoc hides it:** `private`, `private[x]`, `protected[this]`, and what they
  hold. Members without a comment are listed by their declaration, as Scaladoc lists them; an
  `override` without one, or one saying `@inheritdoc`, shows the overridden member's comment
  where a type of the page declares it (inherited across files: scala_inherit, after reading).
- **Links.** `[[x]]` resolves innermost scope first to a section of the page, a parameter (in
  code), else to the name qualified through the file's imports and package, recorded for the
  build to resolve.

Every section is an API entry named by its qualified name (`cats.Functor.map`).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from docsmcp.model.api import Example, Parameter
from docsmcp.model.source import Converted
from docsmcp.sources.formats.markdown.fences import code_block, code_span
from docsmcp.sources.formats.source import scala_inherit
from docsmcp.sources.formats.source.doc_entries import (
    dotted_category,
    source_entry,
    summary_lines,
)
from docsmcp.sources.formats.source.page_text import (
    Anchors,
    PageText,
    object_anchors,
    unique_anchor,
)
from docsmcp.sources.formats.source.scala_parse import Decl, Unit, parse
from docsmcp.sources.formats.source.scaladoc_text import Doc, defines, render

MAX_ENTRIES = 20_000  # API entries of one file, at most
EMPTY = Converted("", None, (), (), (), ())
_EXTERNAL = ("scala.", "java.", "javax.")
_MD_LINK = re.compile(r"\[([^\[\]\n]*)\]\(#[^()\s]*\)")
_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_INHERITDOC = re.compile(r"@inheritdoc\b")
_OPS = {"~": "tilde", "=": "eq", "<": "less", ">": "greater", "!": "bang", "#": "hash",
        "%": "percent", "^": "up", "&": "amp", "|": "bar", "*": "times", "/": "div",
        "+": "plus", "-": "minus", ":": "colon", "\\": "bslash", "?": "qmark",
        "@": "at"}  # fmt: skip
_LABELS = (("tparam", "Type parameters"), ("param", "Parameters"))


def anchor_part(name: str) -> str:
    """A name as an anchor's part: operator characters spelled as scalac encodes them
    (`|+|` -> `-bar-plus-bar`)."""
    if re.fullmatch(r"[\w.]+", name):
        return name
    return "".join(c if c.isalnum() or c in "_." else "-" + _OPS.get(c, "x") for c in name)


@dataclass
class _Page(PageText):
    unit: Unit
    local: dict[str, str] = field(default_factory=dict)  # path below the package -> anchor
    used: Anchors = field(default_factory=Anchors)
    pending: list[str] = field(default_factory=list)
    scope: list[str] = field(default_factory=list)
    params: frozenset[str] = frozenset()
    docs: dict[str, str] = field(default_factory=dict)  # `Type.member` -> its comment
    inherits: dict[str, Any] = field(default_factory=dict)  # (scala_inherit's line)
    aliases: list[tuple[str, str, Any, int]] = field(default_factory=list)  # (scala_inherit)

    def unique(self, base: str) -> str:
        """`base`, or `base-2`, `base-3`… (overloads): page_text.unique_anchor."""
        return unique_anchor(base, self.used)

    def qualified(self, package: str, path: list[str]) -> str:
        return ".".join([package, *path] if package else path)

    def link(self, target: str, label: str) -> str:
        shown = label or code_span(target)
        if target in self.params:
            return label or code_span(target)
        package = self.unit.package
        below = (
            target[len(package) + 1 :] if package and target.startswith(package + ".") else target
        )
        for k in range(len(self.scope), -1, -1):
            found = self.local.get(".".join([*self.scope[:k], below]))
            if found is not None:
                return f"[{shown}](#{found})"
        head, _, rest = target.partition(".")
        if head in self.unit.imports:
            resolved = self.unit.imports[head] + ("." + rest if rest else "")
        elif "." in target and head[:1].islower():
            resolved = target
        elif head[:1].isupper():
            resolved = self.qualified(package, [target])
        else:
            return shown
        if not resolved.startswith(_EXTERNAL):
            self.pending.append(resolved)
        return shown

    def heading(self, level: int, line: int, title: str, anchor: str, qualified: str) -> int:
        self.blank(line)
        at = len(self.out)
        shown = re.sub(r"([_*\\`<>\[\]])", r"\\\1", title)
        self.add(line, f"{'#' * min(level, 6)} {shown} {{#{anchor}}}")
        self.anchors += object_anchors(at, qualified.split("."))
        return at

    def tags(self, doc: Doc, line: int) -> list[str]:
        for name, label in _LABELS:
            items = doc.all(name)
            if items:
                self.lines(line, [f"**{label}:**", ""])
                for t in items:
                    self.add(line, f"- {code_span(t.arg)} - {_one_line(t.text)}".rstrip(" -"))
        if (ret := doc.first("return")) is not None and ret.text:
            self.lines(line, [f"**Returns:** {_one_line(ret.text)}"])
        throws = doc.all("throws")
        if throws:
            self.lines(line, ["**Throws:**", ""])
            for t in throws:
                self.add(line, f"- {code_span(t.arg)} - {_one_line(t.text)}".rstrip(" -"))
        examples: list[str] = []
        for t in doc.all("example"):
            self.lines(line, ["**Example:**", "", *t.text.split("\n")])
            examples += _code(t.text)
        for name, label in (("note", "Note"), ("see", "See also"), ("since", "Since")):
            for t in doc.all(name):
                if t.text:
                    self.lines(line, [f"**{label}:** {t.text.strip()}"])
        return examples

    def section(self, d: Decl, level: int, package: str, path: list[str], defs: dict[str, str],
                title: str = "", entry: bool = True) -> None:  # fmt: skip
        qualified = self.qualified(package, path)
        anchor = self.local.get("\x00" + str(id(d))) or self.unique(anchor_part(".".join(path)))
        line = d.doc_line if d.doc else d.line
        at = self.heading(level, line, title or ".".join(path), anchor, qualified)
        self.blank(d.line)
        signature = d.signature
        if d.kind == "type" and "opaque" in d.modifiers:
            signature = signature.split(" = ", 1)[0]
        for text in code_block("", "scala", [signature]):
            self.add(d.line, text)
        self.pending = []
        self.scope = path if d.is_type else path[:-1]
        self.params = frozenset(n for n, _ in d.params if n)
        raw = d.doc or ""
        if not raw.strip() or _INHERITDOC.search(raw):  # (Scaladoc copies an overridden one)
            found = self.inherited_doc(path)
            raw = _INHERITDOC.sub(lambda _: found, raw) if raw.strip() else found
        doc = render(raw, self.link, defs, level)
        deprecated = _deprecation(d, doc)
        if deprecated is not None:
            self.lines(d.line, [f"**Deprecated.** {deprecated}".rstrip()])
        self.lines(line, list(doc.lines))
        examples = self.tags(doc, line)
        self.refs += [(at, t) for t in self.pending]
        if entry:
            self.entry(d, qualified, doc, deprecated, examples, at)

    def inherited_doc(self, path: list[str]) -> str:
        """The comment a member without one takes from a parent: one on the page, else one
        the tree-wide pass found."""
        found = self.docs.get(".".join(path[-2:]) + "\x00inherited")
        return found or self.docs.get(".".join(path) + "\x00tree", "")

    def inherited_entry(self, m: dict[str, Any], child: str, at: int) -> None:
        """The entry of an inherited member the page does not show (at its line)."""
        raw = str(m.get("doc") or "")
        doc = render(raw, lambda target, label: label or code_span(target), {}, 3)
        line = self.out[at][0] if at < len(self.out) else 0
        decl = Decl(str(m.get("kind") or "def"), child.rsplit(".", 1)[-1],
                    str(m.get("signature") or ""), line, 0)  # fmt: skip
        self.entry(decl, child, doc, None, [], at)

    def entry(self, d: Decl, name: str, doc: Doc, deprecated: str | None,
              examples: list[str], at: int) -> None:  # fmt: skip
        if len(self.api) >= MAX_ENTRIES:
            return
        said = {t.arg: _one_line(t.text) for t in doc.all("param")}
        params = tuple(Parameter(n, t, None, said.get(n, "")) for n, t in d.params if n)
        returns = d.returns
        if (ret := doc.first("return")) is not None and ret.text:
            returns = f"{returns}: {_one_line(ret.text)}" if returns else _one_line(ret.text)
        description = " ".join(summary_lines(list(doc.lines)))
        if deprecated is not None:
            description = f"Deprecated. {deprecated} {description}".strip()
        last = self.last_text(at)
        kind = ("type" if d.is_type else "property" if d.kind in ("val", "var", "case")
                else "method")  # fmt: skip
        self.api.append(
            source_entry(
                name=name,
                category=dotted_category(name),
                kind=kind,
                signature=d.signature,
                description=_MD_LINK.sub(r"\1", description),
                parameters=params,
                returns=returns,
                examples=tuple(Example("scala", c) for c in examples),
                path=self.path,
                line_start=at + 1,
                line_end=max(at, last) + 1,
            )
        )


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _code(text: str) -> list[str]:
    """The code blocks of a tag's markdown."""
    out: list[str] = []
    cur: list[str] | None = None
    for line in text.split("\n"):
        if line.startswith("```"):
            if cur is None:
                cur = []
            else:
                out.append("\n".join(cur))
                cur = None
        elif cur is not None:
            cur.append(line)
    return out


def _deprecation(d: Decl, doc: Doc) -> str | None:
    for a in d.annotations:
        if a == "deprecated" or a.startswith(("deprecated(", "deprecated (", "scala.deprecated")):
            said = _STRING.findall(a)
            text = said[0] if said else ""
            if len(said) > 1 and said[1]:
                text = f"{text} (since {said[1]})".strip()
            return text
    tag = doc.first("deprecated")
    return _one_line(tag.text) if tag is not None else None


def _shown(decls: list[Decl]) -> list[Decl]:
    return [d for d in decls if not d.hidden and d.name]


def _groups(decls: list[Decl]) -> list[tuple[Decl, Decl | None]]:
    """(declaration, its companion object) in order; a companion joins its class."""
    types = {d.name: d for d in decls if d.kind in ("class", "trait", "enum")}
    companions = {d.name: d for d in decls if d.kind == "object" and d.name in types}
    out: list[tuple[Decl, Decl | None]] = []
    for d in decls:
        if d.kind == "object" and d.name in types:
            continue
        out.append((d, companions.get(d.name) if d.kind in ("class", "trait", "enum") else None))
    return out


def _param_doc(d: Decl, name: str) -> str | None:
    """The `@param` text a class's comment gives a parameter (its case class's val)."""
    m = re.search(rf"^[ \t]*@param[ \t]+{re.escape(name)}[ \t]+(.+)$", d.doc or "", re.M)
    return m.group(1) if m else None


def _members(d: Decl) -> list[Decl]:
    """A type's shown members; a case class's parameters first, as its vals (made once: a
    section's anchor is found by its declaration)."""
    if d.kind == "class" and "case" in d.modifiers and d.params and "\x00vals" not in d.modifiers:
        d.members[:0] = [Decl("val", n, f"val {n}: {t}", d.line, d.col, doc=_param_doc(d, n),
                              end_line=d.line) for n, t in d.params if n]  # fmt: skip
        d.modifiers += ("\x00vals",)
    return _shown(d.members)


def _assign(page: _Page, decls: list[Decl], path: list[str]) -> None:
    """Anchors of every section, before any is written (a link may point forward); the
    comments of members by `Type.member`, for overrides without their own."""
    for d, companion in _groups(_shown(decls)):
        here = [*path, d.name] if d.kind != "package" else []
        if d.kind != "package":
            key = ".".join(here)
            anchor = page.unique(anchor_part(key))
            page.local.setdefault(key, anchor)
            page.local["\x00" + str(id(d))] = anchor
        members = _members(d) + (_shown(companion.members) if companion else [])
        for m in members:
            if m.doc and not m.is_type:
                page.docs.setdefault(f"{d.name}.{m.name}", m.doc)
        _assign(page, members, here)


def _parent_docs(page: _Page, decls: list[Decl]) -> None:
    """For each type's member, the comment of the same-named member of the nearest parent
    the page declares (`Type.member\\x00inherited`)."""
    types: dict[str, Decl] = {}
    todo = list(decls)
    while todo:
        d = todo.pop()
        if d.is_type:
            types.setdefault(d.name, d)
            todo += d.members
    for t in types.values():
        for m in t.members:
            seen: set[str] = set()
            queue = [p.split(".")[-1] for p in t.parents]
            while queue and len(seen) < 16:
                p = queue.pop(0)
                if p in seen or p not in types:
                    continue
                seen.add(p)
                found = page.docs.get(f"{p}.{m.name}")
                if found:
                    page.docs.setdefault(f"{t.name}.{m.name}\x00inherited", found)
                    break
                queue += [x.split(".")[-1] for x in types[p].parents]


def _walk(page: _Page, decls: list[Decl], level: int, package: str, path: list[str],
          defs: dict[str, str], main: Decl | None = None) -> None:  # fmt: skip
    for d, companion in _groups(_shown(decls)):
        inner = dict(defs)
        inner.update(defines(d.doc or ""))
        if d.kind == "package":
            pkg = ".".join(p for p in (package, d.name) if p)
            page.section(d, level if d is not main else 1, package, [d.name],
                         inner, title=f"package {pkg}", entry=False)  # fmt: skip
            scala_inherit.write(page, "package " + pkg, pkg, d.line)
            _walk(page, d.members, (level if d is not main else 1) + 1, pkg, [], inner)
            continue
        here = [*path, d.name]
        own = 1 if d is main else level
        title = page.qualified(package, here) if d is main else ""
        page.section(d, own, package, here, inner, title=title)
        scala_inherit.write(page, ".".join(here), page.qualified(package, here), d.line)
        _walk(page, _members(d), own + 1, package, here, inner)
        if companion is not None:
            cdefs = dict(inner)
            cdefs.update(defines(companion.doc or ""))
            if companion.doc:
                page.section(companion, own + 1, package, here, cdefs,
                             title=f"object {'.'.join(here)}", entry=False)  # fmt: skip
            _walk(page, _shown(companion.members), own + 1, package, here, cdefs)


def scala_to_markdown(path: str, text: str) -> Converted:
    """The Scaladoc page of the Scala file `text` (see the module's docstring)."""
    text, inherits = scala_inherit.split(text.replace("\r\n", "\n"))
    unit = parse(text)
    shown = _shown(unit.decls)
    if not shown:
        return EMPTY
    page = _Page(path, unit, inherits=inherits)
    _assign(page, shown, [])
    _parent_docs(page, shown)
    for key, doc in scala_inherit.docs(inherits).items():
        page.docs[key + "\x00tree"] = doc
    names = {d.name for d in shown}
    stem = posixpath.basename(path).rsplit(".", 1)[0]
    main = None
    if len(names) == 1 and (shown[0].is_type):
        main = next((d for d in shown if d.kind != "object"), shown[0])
    if main is not None:
        _walk(page, shown, 2, unit.package, [], {}, main)
        title = page.qualified(unit.package, [main.name])
        if main.kind == "package":
            title = f"package {title}"
    else:
        title = f"{unit.package or '(root)'} ({posixpath.basename(path)})"
        line = unit.package_line if unit.package else shown[0].line
        page.heading(1, line, title, page.unique("package"), unit.package or stem)
        _walk(page, shown, 2, unit.package, [], {})
    scala_inherit.entries(page, page.inherited_entry)
    return page.converted(title)
