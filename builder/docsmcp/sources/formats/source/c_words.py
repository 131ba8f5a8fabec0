"""The words of a C or C++ declaration, as the Doxygen reader (doxygen_decls.py) names it:
what a `{` opens, a type's name and bases, a function's name and parameters, the declaration
as shown. Tokens come from `TOKEN` (identifiers, `::`, `->`, numbers, single characters)."""

from __future__ import annotations

import re

TOKEN = re.compile(r"[A-Za-z_]\w*|::|->|\d[\w.']*|\S")
KEYWORDS = frozenset(
    "if else for while do switch return sizeof typeof decltype alignof static_assert "
    "operator template typename".split()
)


def brace_kind(words: list[str]) -> str:
    if not words:
        return "block"
    if words[0] == "namespace" or (words[0] == "inline" and words[1:2] == ["namespace"]):
        return "namespace"
    if words[0] == "extern" and all(w in ('"', "'") for w in words[1:]):  # extern "C" {
        return "extern"
    if "(" in words:
        return "function"
    for w in words:
        if w in ("class", "struct", "union", "enum"):
            return w
    return "block"


def type_name(words: list[str], trailing: list[str]) -> str:
    """The name of `struct X {`, `typedef struct X {…} Y;` (Y), `enum class E : int {`."""
    if words and words[0] == "typedef" and trailing:
        names = [t for t in trailing if re.fullmatch(r"[A-Za-z_]\w*", t)]
        if names:
            return names[-1]
    after = False
    for k, w in enumerate(words):
        if w in ("class", "struct", "union", "enum"):
            after = True
            continue
        if after and w in ("class", "struct"):
            continue
        if after and re.fullmatch(r"[A-Za-z_]\w*", w) and w not in ("final", "alignas"):
            # (`class API_EXPORT Name`: the last identifier before `:` or the end)
            rest = words[k + 1 :]
            if rest and re.fullmatch(r"[A-Za-z_]\w*", rest[0]) and rest[0] != "final":
                continue
            return w
        if after and w == ":":
            break
    return ""


def forward(words: list[str]) -> bool:
    """`class Window;`, `struct GlContext;`: a forward declaration, which Doxygen documents as
    nothing (the class is where it is defined)."""
    tags = ("class", "struct", "union", "enum")
    return words[0] in tags and len([w for w in words if w not in tags and w != ":"]) <= 1


def bases(words: list[str], kind: str) -> tuple[str, ...]:
    """The public base classes of `class X : public A, private B, C` (a struct's bases are
    public unless said otherwise, a class's private), without template arguments."""
    try:
        colon = words.index(":")
    except ValueError:
        return ()
    out: list[str] = []
    depth = 0
    access = "public" if kind == "struct" else "private"
    name: list[str] = []
    for w in [*words[colon + 1 :], ","]:
        if w == "<":
            depth += 1
        elif w == ">":
            depth -= 1
        elif depth > 0:
            continue
        elif w == ",":
            if name and access == "public":
                out.append("".join(name))
            access, name = ("public" if kind == "struct" else "private"), []
        elif w in ("public", "protected", "private"):
            access = w
        elif w != "virtual" and (w == "::" or re.fullmatch(r"[A-Za-z_]\w*", w)):
            name.append(w)
    return tuple(out)


def named(words: list[str]) -> tuple[str, str, str]:
    """(kind, name, parameters) of a declaration's words: the name is the outermost
    declarator's, so a function taking a callback (`int exec(…, int (*callback)(void*), …)`)
    is named `exec`, not `callback`."""
    typedef = words[0] == "typedef"
    k = _declarator_paren(words)
    # A function pointer: `typedef void (* GLFWerrorfun)(int, const char*)`, a member
    # `int (*xClose)(sqlite3_file*)`, or a function returning one (`void (*signal(int, …))(int)`).
    pointer = _pointer(words, k) if k >= 0 else None
    if pointer is not None:
        name_at, function = pointer
        if function:  # (`signal(…)` inside the group: its own parameter list)
            kind = "typedef" if typedef else "function"
            return kind, words[name_at], params_text(words, name_at + 2)
        # (`(*name)(…)`'s parameters; `(*name[4])`, an array of them, keeps none)
        closed = words[name_at + 1 : name_at + 2] == [")"]
        params = params_text(words, name_at + 2) if closed else ""
        return ("typedef" if typedef else "variable"), words[name_at], params
    if k >= 0 and not typedef:
        # `operator()`, `operator==`: named `operator` (overloads of it, `Class::operator-2`).
        if "operator" in words[: k + 1]:
            at = words.index("operator")
            if words[at + 1 : at + 2] == ["("]:  # (`operator()(…)`: its own parameter list)
                k = words.index("(", at + 3)
            return "function", qualified(words, at), params_text(words, k + 1)
        if k > 0 and re.fullmatch(r"~?[A-Za-z_]\w*", words[k - 1]):
            if k > 1 and words[k - 2] == "~":  # (a destructor: `~` and the name are two tokens)
                scope = qualified(words, k - 2)[:-1]  # (`Window::` of `Window::~Window`)
                return "function", f"{scope}~{words[k - 1]}", params_text(words, k + 1)
            return "function", qualified(words, k - 1), params_text(words, k + 1)
        return "", "", ""
    stop = len(words)
    for k, w in enumerate(words):
        if w in ("[", "=", ":", ","):
            stop = k
            break
    names = [w for w in words[:stop] if re.fullmatch(r"[A-Za-z_]\w*", w)]
    if len(names) < 2 and not typedef:
        return "", "", ""
    return ("typedef" if typedef else "variable"), names[-1] if names else "", ""


# Words whose parenthesis is an attribute's, not the declarator's.
_ATTRIBUTES = frozenset(("__attribute__", "__attribute", "__declspec", "alignas", "_Alignas"))
_CALLING = re.compile(r"[A-Z][A-Z0-9_]+|__\w+")
_POINTER_WORDS = frozenset(("*", "&", "^", "const", "volatile", "restrict", "__restrict"))


def _declarator_paren(words: list[str]) -> int:
    """The first `(` outside any other that is no attribute's (`__attribute__((…))`): the
    parameter list of a function, or the group of a pointer declarator (-1: none)."""
    k = 0
    while k < len(words):
        if words[k] != "(":
            k += 1
            continue
        if k == 0 or words[k - 1] not in _ATTRIBUTES:
            return k
        depth = 0
        while k < len(words):  # (past the attribute's parentheses)
            depth += words[k] == "("
            depth -= words[k] == ")"
            k += 1
            if depth == 0:
                break
    return -1


def _pointer(words: list[str], k: int) -> tuple[int, bool] | None:
    """(where the name is, whether it is a function's) of a pointer declarator group opening at
    words[k]: `(*name)`, `(APIENTRY *name)`, `(*name[4])`, `(*name(…))`, or one nested in
    another (`(*(*xDlSym)(…))`, the outermost group holding the name). Bounded: every step
    moves forward."""
    while True:
        j = k + 1
        # (a calling convention before the star, `(APIENTRY *name)(…)`; not a parameter's type,
        # `f(FILE *fp)`, which no parameter list follows)
        called = j + 1 < len(words) and bool(_CALLING.fullmatch(words[j])) and words[j + 1] == "*"
        j += called
        if j >= len(words) or words[j] not in ("*", "&", "^"):
            return None
        while j < len(words) and words[j] in _POINTER_WORDS:
            j += 1
        if j >= len(words):
            return None
        if words[j] == "(":  # (a group inside the group)
            k = j
            continue
        if not re.fullmatch(r"[A-Za-z_]\w*", words[j]):
            return None
        if called and words[j + 1 : j + 3] != [")", "("]:
            return None
        return j, words[j + 1 : j + 2] == ["("]


def qualified(words: list[str], k: int) -> str:
    """The name ending at words[k] with the `A::B::` written before it."""
    name = words[k]
    while k >= 2 and words[k - 1] == "::" and re.fullmatch(r"[A-Za-z_]\w*", words[k - 2]):
        name = f"{words[k - 2]}::{name}"
        k -= 2
    return name


def params_text(words: list[str], k: int) -> str:
    depth = 1
    out: list[str] = []
    while k < len(words):
        w = words[k]
        depth += w == "("
        depth -= w == ")"
        if depth == 0:
            break
        out.append(w)
        k += 1
    return " ".join(out)


def clean(text: str, hidden: frozenset[str]) -> str:
    lines = [" ".join(x.split()) for x in text.split("\n")]
    code = " ".join(x for x in lines if x)
    if hidden:
        code = " ".join(w for w in code.split(" ") if w not in hidden)
    code = re.sub(r"\s+([,)])", r"\1", code)
    # (`extern` is linkage, which Doxygen's declarations leave out: SDL's every function)
    return re.sub(r"\(\s+", "(", code).strip().removeprefix("extern ")
