"""The other files' declarations a TypeScript page is read with (packages/typescript_links.py
gathers them after marker lines): its classes' and interfaces' bases, whose public members the
page shows under the child as TypeDoc's "Inherited from" (which bases another page shows: their
methods are links there, tsdoc.py), and, for a module no entry point
exports, which of its declarations the page shows (the types the API names).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from docsmcp.sources.formats.source.ts_decls import Declaration, Member, declarations
from docsmcp.sources.formats.source.ts_scan import blank, closing

MARK = "\0ts-"  # a marker line of a gathered page (TypeScript source holds no NUL)
MAX_INHERITED = 400  # members one declaration inherits


@dataclass(frozen=True)
class Base:
    child: str  # the declaration extending it (the page's, or a base's)
    decl: Declaration  # the base, as its own file declares it
    path: str  # its file


@dataclass(frozen=True)
class Context:
    bases: tuple[Base, ...]
    only: frozenset[str] | None  # the declarations a referenced module's page shows
    # namespaces its declarations are exported under (`z`: `z.object` names `object`)
    namespaces: tuple[str, ...] = ()
    # (path, name) of the bases another page shows: their members have sections there
    elsewhere: frozenset[tuple[str, str]] = frozenset()


def split(text: str) -> tuple[str, Context]:
    """(the file's own text, what follows it) of a gathered page; a plain file is its text."""
    cut = text.find("\n" + MARK)
    if cut < 0:
        return text, Context((), None)
    own, rest = text[:cut], text[cut + 1 :].split("\n")
    bases: list[Base] = []
    only: frozenset[str] | None = None
    spaces: tuple[str, ...] = ()
    elsewhere: set[tuple[str, str]] = set()
    k = 0
    while k < len(rest):
        line = rest[k]
        j = k + 1
        while j < len(rest) and not rest[j].startswith(MARK):
            j += 1
        words = line[len(MARK) :].split(" ") if line.startswith(MARK) else []
        if words[:1] == ["only"]:
            only = frozenset(words[1:])
        elif words[:1] == ["namespace"]:
            spaces = tuple(w for w in words[1:] if w)
        elif words[:1] == ["shown"] and len(words) >= 3:
            elsewhere.add((" ".join(words[2:]), words[1]))
        elif words[:1] == ["base"] and len(words) >= 4:
            child, name, path = words[1], words[2], " ".join(words[3:])
            found = declarations("\n".join(rest[k + 1 : j]), ambient=True)
            short = name.rsplit(".", 1)[-1]
            decl = next((d for d in found if d.name.rsplit(".", 1)[-1] == short), None)
            if decl is not None:
                bases.append(Base(child, decl, path))
        k = j
    return own, Context(tuple(bases), only, spaces, frozenset(elsewhere))


def _top_split(text: str) -> list[str]:
    """`text` split at commas outside brackets (a type list)."""
    code = blank(text).code
    out, k, start = [], 0, 0
    while k < len(code):
        if code[k] in "([{<" and not (code[k] == "<" and code[k - 1 : k] == "="):
            k = closing(code, k, len(code)) + 1
            continue
        if code[k] == ",":
            out.append(text[start:k])
            start = k + 1
        k += 1
    out.append(text[start:])
    return [p.strip() for p in out if p.strip()]


def _angle(sig: str, at: int) -> str | None:
    """The text inside the `<…>` opening at `at` of `sig`, or None."""
    if sig[at : at + 1] != "<":
        return None
    end = closing(blank(sig).code, at, len(sig))
    return sig[at + 1 : end] if end < len(sig) else None


def _type_params(decl: Declaration) -> list[tuple[str, str]]:
    """A class's or interface's type parameters: (name, default or "")."""
    sig = decl.signatures[0] if decl.signatures else ""
    m = re.search(r"\b(?:class|interface)\s+[\w$]+\s*", sig)
    inner = _angle(sig, m.end()) if m else None
    out = []
    for part in _top_split(inner or ""):
        name = re.match(r"(?:in\s+|out\s+|const\s+)*([\w$]+)", part)
        default = _top_split(part.replace("=", ",", 1))[1:] if "=" in part else []
        if name:
            out.append((name.group(1), default[0] if default else ""))
    return out


def _arguments(child: Declaration, base: str) -> list[str]:
    """The type arguments `child`'s `extends` gives `base` (`APIError<429, Headers>`)."""
    sig = child.signatures[0] if child.signatures else ""
    for m in re.finditer(rf"(?<![\w$.])(?:[\w$]+\.)*{re.escape(base)}\s*(?=<)", sig):
        if "extends" in sig[: m.start()]:
            return _top_split(_angle(sig, m.end()) or "")
    return []


def _substitute(text: str, bound: dict[str, str]) -> str:
    if not bound or not text:
        return text
    names = "|".join(re.escape(n) for n in sorted(bound, key=len, reverse=True))
    return re.sub(rf"(?<![\w$.])({names})(?![\w$])", lambda m: bound[m.group(1)], text)


def _bound(child: Declaration, base: Declaration, outer: dict[str, str]) -> dict[str, str]:
    """What `base`'s type parameters stand for under `child` (its `extends` arguments, else
    their defaults), written in the page's terms (`outer`: the child's own bindings):
    `RateLimitError extends APIError<429, Headers>` gives `TStatus` 429, as TypeDoc shows."""
    given = _arguments(child, base.name.rsplit(".", 1)[-1])
    out: dict[str, str] = {}
    for k, (name, default) in enumerate(_type_params(base)):
        value = given[k] if k < len(given) else _substitute(default, out)
        if value:
            out[name] = _substitute(value, outer)
    return out


def _in_terms(m: Member, bound: dict[str, str]) -> Member:
    if not bound:
        return m
    return dataclasses.replace(
        m,
        type=_substitute(m.type, bound),
        signatures=tuple(_substitute(s, bound) for s in m.signatures),
    )


def _chain(decl: Declaration, context: Context) -> list[tuple[Member, str, dict[str, str]]]:
    """Every member of `decl`'s bases, nearest base first, each with its base's name and what
    that base's type parameters stand for under `decl` (`_in_terms` writes them so)."""
    out: list[tuple[Member, str, dict[str, str]]] = []
    queue: list[tuple[Declaration, dict[str, str]]] = [(decl, {})]
    done: set[str] = set()
    while queue and len(out) < MAX_INHERITED * 4:
        child_decl, outer = queue.pop(0)
        child = child_decl.name.rsplit(".", 1)[-1]
        if child in done:
            continue
        done.add(child)
        bases: set[tuple] = set()  # (a base recorded for several declarations of the page)
        for base in context.bases:
            name = base.decl.name.rsplit(".", 1)[-1]
            # (two bases of one name and file: `StandardSchemaV1.Props`, `…JSONSchemaV1.Props`)
            key = (base.path, base.decl.signatures, tuple(m.name for m in base.decl.members))
            if base.child.rsplit(".", 1)[-1] != child or key in bases:
                continue
            bases.add(key)
            bound = _bound(child_decl, base.decl, outer)
            out.extend((m, name, bound) for m in base.decl.members if m.kind != "constructor")
            queue.append((base.decl, bound))
    return out


def _inherits(decl: Declaration, context: Context) -> bool:
    """Whether `decl` can have bases: a class or an interface (zod's `const ZodString`, beside
    `interface ZodString`, is a variable of that name, which inherits nothing)."""
    return bool(context.bases) and decl.kind in ("class", "interface")


def base_path(context: Context, name: str) -> str:
    """The file declaring the base `name` (as `inherited` names it), or ""."""
    short = name.rsplit(".", 1)[-1]
    return next((b.path for b in context.bases if b.decl.name.rsplit(".", 1)[-1] == short), "")


def inherited(decl: Declaration, context: Context) -> list[tuple[Member, str]]:
    """The members `decl` inherits that it does not declare itself, nearest base first, each
    with the base declaring it (`APIError`); constructors are not inherited."""
    if not _inherits(decl, context):
        return []
    own = {m.name for m in decl.members}
    out: list[tuple[Member, str]] = []
    seen: set[str] = set()
    for m, name, bound in _chain(decl, context):
        if m.name not in own and m.name not in seen and len(out) < MAX_INHERITED:
            seen.add(m.name)
            out.append((_in_terms(m, bound), name))
    return out


def overridden(decl: Declaration, context: Context) -> dict[str, tuple[Member, str]]:
    """The members of `decl` a base declares too (an override): name -> the nearest base's
    member and that base's name. TypeDoc marks them "Overrides" and, where the override has
    no comment of its own, shows the base's."""
    if not _inherits(decl, context):
        return {}
    own = {m.name for m in decl.members if m.kind != "constructor"}
    out: dict[str, tuple[Member, str]] = {}
    for m, name, bound in _chain(decl, context):
        if m.name in own and m.name not in out:
            out[m.name] = (_in_terms(m, bound), name)
    return out
