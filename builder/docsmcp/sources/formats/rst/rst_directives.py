"""The docutils directives and roles that rst.py registers for Sphinx sources: code, toctree,
version notes, described objects, admonitions, silent and unknown ones, and link roles relative to
the page being converted.
"""

from __future__ import annotations

import contextvars
import posixpath
import re

from docutils import nodes
from docutils.parsers.rst import Directive, Parser, directives, roles
from docutils.parsers.rst.languages import en as _ENGLISH  # directive and role names
from docutils.utils import unescape

from docsmcp.common.logs import warn_once
from docsmcp.sources.formats.linemap import file_line
from docsmcp.sources.formats.markdown.link_titles import title_of
from docsmcp.sources.formats.rst.rst_objects import (
    CATEGORY_OPTION,
    MAX_SIGNATURES,
    MEMBER_HOLDERS,
    STATE,
    Mark,
    anchor_marks,
    describe,
    domain_and_type,
    kind_of,
    object_name,
    qualify,
    role_target,
    set_scope,
    signature_lines,
)

# The page being converted (its POSIX path), for roles that link relative to it.
_PAGE: contextvars.ContextVar[str] = contextvars.ContextVar("rst_page", default="")
_SETTINGS = {
    "file_insertion_enabled": False,  # `include`, `csv-table :file:`: never read other files
    "raw_enabled": False,
    "report_level": 5,  # no messages on stderr: problems stay in the tree, and are skipped
    "halt_level": 5,
    "syntax_highlight": "none",
    "warning_stream": False,
    "line_length_limit": 10_000_000,  # the file limits (limits.py) bound lines already
}
_PARSER = Parser()

# Roles whose text is code (Sphinx's Python, C, JS domains and standard roles; the
# cross-reference types Sphinx projects declare most, `setting` of Django, Scrapy and Celery,
# `confval`, Sphinx's `event`, Django's template tags, filters, lookups and commands: Sphinx
# shows them as code linking to the declaration).
_CODE_ROLES = frozenset(
    "func meth class mod attr data exc obj const var envvar option program file samp kbd "
    "command makevar mailheader regexp token keyword member macro type struct union enum "
    "enumerator expr texpr cpp:func any setting confval event ttag tfilter lookup djadmin".split()
)
_ADMONITIONS = {
    "attention": "Attention",
    "caution": "Caution",
    "danger": "Danger",
    "error": "Error",
    "hint": "Hint",
    "important": "Important",
    "note": "Note",
    "tip": "Tip",
    "warning": "Warning",
    "seealso": "See also",
    "todo": "Todo",
}
_DIRECTIVE = re.compile(r"^[ \t]*\.\.[ \t]+([A-Za-z][\w:.+-]*)::", re.MULTILINE)
_EXPLICIT_LINE = re.compile(r"^[ \t]*\.\.[ \t]", re.MULTILINE)
_ROLE = re.compile(r"(?<![\w`]):([A-Za-z][\w:.+-]*):`")
_EXPLICIT = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.DOTALL)


class _AnyOptions(dict):
    """An option_spec accepting every option (Sphinx directives have many)."""

    def __contains__(self, key: object) -> bool:
        return True

    def __bool__(self) -> bool:  # docutils parses options only when option_spec is truthy
        return True

    def __missing__(self, key: str):
        return directives.unchanged


class _Generic(Directive):
    """A directive docutils does not know: its argument as a label line and its content parsed
    as reST, so nothing of the page is lost."""

    has_content = True
    optional_arguments = 50
    final_argument_whitespace = True
    option_spec = _AnyOptions()
    label = ""

    def run(self) -> list[nodes.Node]:
        box = nodes.container(classes=["generic", self.name])
        if not self.content and not self.options and len(self.arguments) == 1:
            box["classes"].append("bare")  # a declaration: rst_declarations.attach_declarations
        box.line = self.lineno
        label = self.label or " ".join(self.arguments)
        if label:
            box += nodes.paragraph(text=label, classes=["label"])
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, box)
        return [box]


class _Unknown(_Generic):
    def run(self) -> list[nodes.Node]:
        out = super().run()
        if "bare" in out[0]["classes"]:
            # Maybe a project's declaration (`.. signal:: task_failure` over the section of that
            # name): rst_declarations.attach_declarations decides, and warns if it is none.
            out[0]["unknown"] = self.name
        else:
            warn_unknown(self.name, self.lineno)
        return out


def warn_unknown(name: str, lineno: int) -> None:
    """Say once per directive name that a directive no one knows shows its text as it is."""
    warn_once(
        f"rst-directive {name}",
        "%s:%d: unknown reST directive %r: its content is kept as text "
        "(one warning per directive name)",
        _PAGE.get(),
        file_line(lineno),
        name,
    )


class _Code(Directive):
    """`code-block`, `sourcecode`, `code`: a literal block with its language."""

    has_content = True
    optional_arguments = 1
    option_spec = _AnyOptions()

    def run(self) -> list[nodes.Node]:
        text = "\n".join(self.content)
        block = nodes.literal_block(text, text)
        block["language"] = self.arguments[0] if self.arguments else ""
        block.line = self.lineno
        return [block]


class _Toctree(Directive):
    """The page's table of contents: a list of links to the pages it names."""

    has_content = True
    option_spec = _AnyOptions()

    def run(self) -> list[nodes.Node]:
        items = nodes.bullet_list()
        items.line = self.lineno
        for line in self.content:
            entry = line.strip()
            if not entry or entry == "self" or "*" in entry:
                continue
            title, target = _explicit(entry)
            if re.match(r"^[a-z]+://", target):
                ref = nodes.reference(title or target, title or target, refuri=target)
            else:
                href = _doc_href(target)
                ref = nodes.reference(title or target, title or target, refuri=href)
            items += nodes.list_item("", nodes.paragraph("", "", ref))
        return [items] if len(items) else []


class _Version(Directive):
    """`versionadded 2.0`: "Added in version 2.0." and its text."""

    has_content = True
    required_arguments = 1
    optional_arguments = 1
    final_argument_whitespace = True
    option_spec = _AnyOptions()
    words = {
        "versionadded": "Added in version",
        "versionchanged": "Changed in version",
        "deprecated": "Deprecated since version",
        "versionremoved": "Removed in version",
        "version-added": "Added in version",  # Sphinx 7.3's spellings
        "version-changed": "Changed in version",
        "version-deprecated": "Deprecated since version",
        "version-removed": "Removed in version",
    }

    def run(self) -> list[nodes.Node]:
        version = self.arguments[0]
        text = f"{self.words.get(self.name, 'Version')} {version}"
        # As Sphinx writes it: "Changed in version 2.0: Renamed." or "... 2.0.". The rest of the
        # argument is reST (its roles and literals parsed: Scrapy's notes whose text starts on
        # the directive's next line showed `:setting:` and ``` `` ``` as written).
        para = nodes.paragraph(
            text=text + (": " if len(self.arguments) > 1 else "."), classes=["version"]
        )
        if len(self.arguments) > 1:
            inline, _ = self.state.inline_text(self.arguments[1], self.lineno)
            para.extend(inline)
        para.line = self.lineno
        out: list[nodes.Node] = [para]
        if self.content:
            box = nodes.container()
            self.state.nested_parse(self.content, self.content_offset, box)
            out.extend(box.children)
        return out


# Descriptions whose `:type:` option Sphinx shows after the name.
_TYPED = frozenset({"property", "attribute", "data", "autoproperty", "autoattribute"})


class _Described(Directive):
    """An object description (`py:function`, `class`, `autofunction`, ...): its signature as a
    code line and its content. autodoc's `auto*` stubs say that their text comes from the code.
    Objects of Sphinx's domains are registered for the API registry (rst_objects.py), and their
    full names become anchors of the signature line."""

    has_content = True
    optional_arguments = 50
    final_argument_whitespace = True
    option_spec = _AnyOptions()

    def run(self) -> list[nodes.Node]:
        signature = " ".join(self.arguments).strip()
        # Without content it only declares a name: rst_declarations.attach_declarations gives it
        # to the section after it (`.. setting:: DOWNLOAD_DELAY` right before DOWNLOAD_DELAY's).
        # An autodoc stub is none: its text is in the code (the stub says so).
        stub = self.name.rpartition(":")[2].startswith("auto")
        bare = not self.content and not stub
        box = nodes.container(classes=["described", "bare"] if bare else ["described"])
        box.line = self.lineno
        domain, objtype = domain_and_type(self.name)
        state = STATE.get()
        names: list[tuple[str, str]] = []
        # `:no-index:` objects are examples: Sphinx makes them no targets either.
        indexed = not ({"no-index", "noindex"} & self.options.keys())
        if state is not None and kind_of(objtype) and indexed:
            for line in signature_lines(self.block_text, self.name):
                # `.. option:: -v, --verbose`: one object per option name
                parts = line.split(", ") if objtype in ("option", "cmdoption") else [line]
                for part in parts[:MAX_SIGNATURES]:
                    name = object_name(domain, objtype, part)
                    if name:
                        names.append((qualify(domain, objtype, name, state), line))
        signature = re.sub(r"\s*\\\s+", " ", signature)  # `\` continues a signature line
        if signature and (typed := self.options.get("type")) and objtype in _TYPED:
            signature += f": {typed}"  # Sphinx's `property data: bytes`
        if signature:
            para = nodes.paragraph(classes=["signature"])
            para += nodes.literal(signature, signature)
            if self.name.rpartition(":")[2].startswith("auto"):
                para += nodes.Text(" (API reference generated from the code by autodoc)")
            if names:
                para += Mark("".join(anchor_marks(full) for full, _ in names))
            box += para
        if self.content:
            saved = (state.classes[:], state.directive) if state is not None else None
            if state is not None and names:
                full = names[0][0]
                if objtype in MEMBER_HOLDERS:
                    module = state.modules.get(domain, "")
                    state.classes.append(full.removeprefix(module + ".") if module else full)
                elif domain == "rst" and objtype == "directive":
                    state.directive = full
            try:
                self.state.nested_parse(self.content, self.content_offset, box)
            finally:
                if state is not None and saved is not None:
                    state.classes[:], state.directive = saved
        if names:
            last = self.content_offset + len(self.content) - 1 if self.content else self.lineno
            before = len(state.found) if state is not None else 0
            describe(domain, objtype, names, box, (self.lineno - 1, max(last, self.lineno - 1)))
            if state is not None and (category := self.options.get(CATEGORY_OPTION)):
                for found in state.found[before:]:
                    found.category = category.strip()
        return [box]


class _Scope(Directive):
    """`module`, `currentmodule` (and their `py:`/`js:` forms), `program` and the C/C++
    `namespace`, `namespace-push`, `namespace-pop`: the module, program or scope of the objects
    after them (rst_objects.set_scope). No text of their own, as in Sphinx."""

    has_content = True
    optional_arguments = 50
    final_argument_whitespace = True
    option_spec = _AnyOptions()

    def run(self) -> list[nodes.Node]:
        state = STATE.get()
        if state is not None:
            domain, directive = domain_and_type(self.name)
            set_scope(domain, directive, " ".join(self.arguments), state)
        return []


class _Silent(Directive):
    """Directives that produce no documentation text (`index`, `highlight`, ...)."""

    has_content = True
    optional_arguments = 50
    final_argument_whitespace = True
    option_spec = _AnyOptions()

    def run(self) -> list[nodes.Node]:
        return []


class _Autosummary(Directive):
    """`autosummary`: a table of the objects it names, each a link to its generated page: here
    a list of the names (NumPy's reference pages were headings over nothing: 1,472 objects in
    238 tables left no word). The summaries come from the code; the names are what the page
    shows whatever the build."""

    has_content = True
    optional_arguments = 50
    option_spec = _AnyOptions()

    def run(self) -> list[nodes.Node]:
        items = nodes.bullet_list()
        items.line = self.lineno
        for line in self.content:
            words = line.strip().split()  # (Sphinx: the first word; NumPy's "x (Array API)")
            name = words[0].lstrip("~") if words else ""
            if name and not name.startswith(("..", ":")) and re.fullmatch(r"[\w.]+", name):
                code: nodes.Node = nodes.literal(name, name)
                if href := title_of("autosummary", name):  # its generated page
                    code = nodes.reference("", "", code, refuri=href)
                items += nodes.list_item("", nodes.paragraph("", "", code))
        return [items] if len(items) else []


class _Admonition(_Generic):
    optional_arguments = 0  # `.. note:: text`: the text is the body, as in docutils

    def run(self) -> list[nodes.Node]:
        box = nodes.container(classes=["admonition-box"])
        box.line = self.lineno
        label = _ADMONITIONS.get(self.name, self.name.capitalize())
        if self.arguments:
            label += ": " + " ".join(self.arguments)
        box += nodes.paragraph(text=label, classes=["label"])
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, box)
        return [box]


_SILENT = (
    "index highlight default-domain tabularcolumns sectionauthor "
    "codeauthor moduleauthor rst-class cssclass todolist inheritance-diagram "
    "graphviz digraph plot literalinclude testsetup testcleanup ifconfig"
).split()
_DESCRIBED = (
    "function class method attribute data exception decorator classmethod staticmethod "
    "property type option envvar describe object cmdoption confval event setting "
    "autofunction autoclass automodule autoattribute automethod autodata autoexception "
    "autodecorator autoproperty autonewtypedata directive directive:option role struct union "
    "var alias concept enum enumerator macro member"
).split()
_CONTAINERS = (
    "tabs tab group-tab code-tab tab-set tab-item grid grid-item grid-item-card card "
    "dropdown container only glossary hlist centered rubric-like productionlist doctest "
    "testcode testoutput jupyter-execute ipython"
).split()


def _register() -> None:
    for name in ("code-block", "sourcecode", "code"):
        directives.register_directive(name, _Code)
    directives.register_directive("toctree", _Toctree)
    directives.register_directive("autosummary", _Autosummary)
    for name in _Version.words:
        directives.register_directive(name, _Version)
    for name in _ADMONITIONS:
        directives.register_directive(name, _Admonition)
    for name in _SILENT:
        directives.register_directive(name, _Silent)
    for name in _DESCRIBED:
        directives.register_directive(name, _Described)
        for domain in ("py", "c", "cpp", "js", "std", "rst"):
            directives.register_directive(f"{domain}:{name}", _Described)
    for name in _CONTAINERS:
        directives.register_directive(name, _Generic)
    for name in ("module", "currentmodule"):
        for domain in ("", "py:", "js:"):
            directives.register_directive(domain + name, _Scope)
    for name in ("program", "std:program"):
        directives.register_directive(name, _Scope)
    for name in ("namespace", "namespace-push", "namespace-pop"):
        for domain in ("c:", "cpp:"):
            directives.register_directive(domain + name, _Scope)
    for name in ("ref", "doc", "term", "abbr", "guilabel", "menuselection", "numref"):
        roles.register_local_role(name, _role)
    for name in _CODE_ROLES:
        roles.register_local_role(name, _role)


def _explicit(text: str) -> tuple[str, str]:
    """(title, target) of `Title <target>`, else ("", text)."""
    m = _EXPLICIT.match(text)
    return (m.group(1).strip(), m.group(2).strip()) if m else ("", text.strip())


def _doc_href(target: str) -> str:
    """The link from the current page to the page `target` names (`/x` from the docs root,
    else relative to the page's folder), as the `.rst` file xref resolves."""
    page = _PAGE.get()
    target = target.strip()
    if target.startswith("/"):
        path = target.lstrip("/")
        rel = posixpath.relpath(path, posixpath.dirname(page) or ".")
    else:
        rel = target
    # (a project whose conf.py makes its pages `.txt`, Django's, links to `.txt` pages)
    suffix = ".txt" if page.lower().endswith(".txt") else ".rst"
    return rel if rel.endswith(suffix) else rel + suffix


def shown_name(text: str) -> str:
    """What Sphinx shows of an object role's text: `title <target>` its title; `!x` x (no
    link), `~a.b.c` c, `.x` x (a relative lookup). Also the default role's (`` `~numpy.x` ``
    where a project's `default_role` is an object role: NumPy's 194 were shown as written)."""
    title, target = _explicit(text)
    if title:
        return title
    shown = target.lstrip("!")
    if shown.startswith("~"):
        shown = shown[1:].rpartition(".")[2]
    return shown.lstrip(".") or shown


def _role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """Sphinx roles: `:doc:` and same-page `:ref:` as links, code roles as code spans, the rest
    as their text."""
    text = unescape(text)
    base = name.rpartition(":")[2]
    title, target = _explicit(text)
    if base == "doc":
        href = _doc_href(target)
        label = title or title_of("doc", target) or target.rstrip("/").rpartition("/")[2]
        return [nodes.reference(rawtext, label, refuri=href)], []
    if base in ("ref", "numref"):
        shown = title or (base == "ref" and title_of("ref", target)) or target.replace("-", " ")
        return [nodes.reference(rawtext, shown, refname_label=target)], []
    if base == "abbr":
        return [nodes.Text(title or target)], []
    if base in _CODE_ROLES or name in _CODE_ROLES:
        code = nodes.literal(rawtext, shown_name(text))
        ref = role_target(target) if not text.lstrip().startswith("!") else ""
        if ref and STATE.get() is not None:  # an object of the corpus resolves (xref)
            code["object_ref"] = ref  # (an attribute, not a node: 20,000 roles, +0.3 s)
        return [code], []
    return [nodes.Text(title or target)], []


def _generic_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """A role docutils and this module do not know (`:issue:`): its text; an extlink of the
    project's conf.py (`:ticket:`35020``): its caption, a link (sphinx_extlinks.py)."""
    if found := title_of(f"extlink:{name}", unescape(text)):
        caption, _, url = found.partition("\x1f")
        return [nodes.reference(rawtext, caption, refuri=url)], []
    title, target = _explicit(unescape(text))
    return [nodes.Text(title or target)], []


def _prepare(text: str) -> None:
    """Register every directive and role of `text` that no one knows yet, generically."""
    # docutils' own registries: what it knows (loaded lazily) and what was registered.
    known_directives = (
        directives._directive_registry.keys()
        | directives._directives.keys()
        | _ENGLISH.directives.keys()
    )
    for name in set(_DIRECTIVE.findall(text)):
        if name.lower() not in known_directives:
            directives.register_directive(name, _Unknown)
    known_roles = roles._role_registry.keys() | roles._roles.keys() | _ENGLISH.roles.keys()
    for name in set(_ROLE.findall(text)):
        if name.rpartition(":")[2] in _CODE_ROLES:
            roles.register_local_role(name, _role)
        elif name.lower() not in known_roles:
            roles.register_local_role(name, _generic_role)
