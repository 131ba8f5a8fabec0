"""What a query says about itself, before any index is read: which taxonomy values it names
("in the Go SDK", "Python client") and whether it is an identifier lookup or a question.

Both are cheap (one regex pass over at most MAX_QUERY_CHARS characters) and deterministic, and
neither ever raises: any string is a query.

Taxonomy values named in a query become a *boost*, never a filter (engine.py): a question that
says "Dub python" ranks the python rows higher, but other rows stay reachable. Which values can
be named:
- a value that is a programming language (`languages.LANGUAGE_ALIASES`, the one home of language
  names) is found by its name or any alias, plus the query-only spellings of QUERY_ALIASES
  ("golang", "node", "C#", ".NET"), whatever the key is called;
- a value of a key in NAMED_KEYS (`product`: the folder-derived product names of the docs-mcp
  convention, as `docsmcp init` writes them) is found by its own name.
Other keys are left alone: measured on yellow-docs, words such as `build`, `learn`, `protocol`
or `current` are taxonomy values there and ordinary words in questions.

Short language names that are ordinary words ("go") count only when written as a name: `Go`
capitalised, or next to a word such as SDK, client or library ("go sdk").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ..bundle.versions import resolve
from ..records import record
from .languages import LANGUAGE_ALIASES

# Query spellings of a language that fences do not use (fence aliases are in LANGUAGE_ALIASES).
# A canonical name maps to the values it may stand for, best first: "node" is javascript, or
# typescript in a corpus that documents its JavaScript SDK as TypeScript only.
QUERY_ALIASES: dict[str, tuple[str, ...]] = {
    "golang": ("go",),
    "node": ("javascript", "typescript"),
    "nodejs": ("javascript", "typescript"),
    "node.js": ("javascript", "typescript"),
    "js": ("javascript", "typescript"),
    "javascript": ("javascript", "typescript"),
    "ts": ("typescript",),
    "c#": ("csharp",),
    ".net": ("csharp",),
    "dotnet": ("csharp",),
    "py": ("python",),
}
# Keys (besides languages) whose values are names a user writes in a question.
NAMED_KEYS = frozenset({"product"})
# Aliases that are ordinary English words: they count only when written as a name.
WORDLIKE = frozenset({"go", "node", "text", "plain", "shell", "console", "rust", "ruby"})
# Words that make the word before them a name ("go sdk", "node client").
NAME_CONTEXT = frozenset(
    {
        "sdk",
        "sdks",
        "client",
        "clients",
        "library",
        "package",
        "module",
        "lang",
        "language",
        "version",
        "code",
        "example",
        "examples",
        "api",
        "bindings",
        "driver",
    }
)
MAX_QUERY_CHARS = 2048
# Version channels a query names by their name when the docs have such a version folder.
NAMED_CHANNELS = frozenset({"draft", "unreleased", "canary", "nightly"})
# A query word shaped like a version: 2025-03-26, 0.5, 1.x, v2, v1.4.
_VERSION_WORD = re.compile(r"v?\d+(?:[.-](?:\d+|x))+|v\d+", re.IGNORECASE)

# Words of a query as a user spells them: letters, digits and the marks of language names
# (`c#`, `c++`, `node.js`, `.net`).
_WORD = re.compile(r"\.?[A-Za-z0-9][A-Za-z0-9_+#.\-]*")
_QUESTION_WORDS = frozenset(
    {
        "how",
        "what",
        "why",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "whose",
        "can",
        "should",
        "does",
        "do",
        "is",
        "are",
        "will",
        "would",
        "could",
        "i",
        "my",
        "we",
        "our",
    }
)
# Identifier shapes: a.b / a::b / a_b / camelCase / CamelCase with an inner capital / call()
# / #[attr] / $var / @scope/pkg / ALL_CAPS / capitals then lower case (`REprintf`, `IOError`;
# `APIs` and `IDs`, one lower-case letter, stay words).
_CODE = re.compile(
    r"\w[.:]{1,2}\w|\w_\w|[a-z][A-Z]|[A-Z][a-z]+[A-Z]|\w\(|#\[|\$\w|@\w+/|^[A-Z][A-Z0-9]*_[A-Z0-9_]+$"
    r"|[A-Z]{2,}[a-z]{2,}"
)

# A query asking to choose: `X vs Y`, `X or Y`, `which …`, `difference between …`, `compared to`.
_CHOICE = re.compile(r"\b(?:vs\.?|versus|or|which|differences?|compare[ds]?)\b", re.IGNORECASE)
# Words that only say "compare": never a side of the comparison. The OPERATORS among them are
# not searched as terms either (lexical.query_terms), or "strict vs lax" ranks "Configure VS
# Code" first; their bigrams stay, so "VS Code" still finds its sections.
OPERATORS = frozenset({"vs", "versus"})
CHOICE_WORDS = OPERATORS | {"which", "difference", "differences", "compare"}

IDENTIFIER, MIXED, QUESTION = "identifier", "mixed", "question"
QUERY_CLASSES = (IDENTIFIER, MIXED, QUESTION)


@record
class Named:
    """A taxonomy value the query names, and the words that named it."""

    key: str
    value: str
    words: tuple[str, ...]

    def note(self) -> str:
        said = ", ".join(repr(w) for w in self.words)
        return (
            f"boosted {self.key}={self.value}: named in the query ({said}); "
            f"pass {self.key} to filter."
        )


def _words(query: str) -> list[str]:
    return [w.rstrip(".-") or w for w in _WORD.findall(query[:MAX_QUERY_CHARS])]


def _language_of() -> dict[str, str]:
    """Each language name and alias → the first language (in LANGUAGE_ALIASES order) that it
    names, so a word is looked up once instead of against every language's aliases."""
    out: dict[str, str] = {}
    for name, aliases in LANGUAGE_ALIASES.items():
        out.setdefault(name, name)
        for alias in aliases:
            out.setdefault(alias, name)
    return out


_LANGUAGE_OF = _language_of()


def _candidates(word: str) -> tuple[str, ...]:
    """Language names `word` may stand for, best first."""
    low = word.lower()
    if low in QUERY_ALIASES:
        return QUERY_ALIASES[low]
    name = _LANGUAGE_OF.get(low)
    return (name,) if name is not None else ()


def named_values(query: str, taxonomy: Mapping[str, Iterable[str]]) -> list[Named]:
    """Values of `taxonomy` (key → values) that `query` names, in key order, one per value."""
    words = _words(query)
    lows = [w.lower() for w in words]
    # Each word's language candidates once, not once per key (~half a search's cost here).
    candidates = [_candidates(word) for word in words]
    found: dict[tuple[str, str], list[str]] = {}
    for key, values in taxonomy.items():
        named_key = key in NAMED_KEYS
        if not named_key and not any(candidates):
            continue
        present = values if isinstance(values, (set, frozenset)) else set(values)
        for i, (word, low) in enumerate(zip(words, lows, strict=True)):
            value = None
            if named_key and low in present:
                value = low
            elif candidates[i]:  # (most words name no language: no list built for them)
                langs = [c for c in candidates[i] if c in present]
                if langs and (low not in WORDLIKE or _as_name(words, lows, i)):
                    value = langs[0]
            if value is not None:
                said = found.setdefault((key, value), [])
                if word not in said:
                    said.append(word)
    return [Named(k, v, tuple(w)) for (k, v), w in found.items()]


def named_versions(query: str, values: Iterable[str]) -> list[str]:
    """Versions among `values` that `query` names: a word shaped like a version (a digit and
    a `.` or `-`, or `v2`) that is a value or, as a request (`0.5` for `0.5.x`), resolves to
    one, or a channel such as `draft` that is a value. A plain number ("error 404", "python
    3") names none, nor do `next`, `current` or `latest` (ordinary words in questions), nor
    the version a move leaves behind (left_behind: "from v1 to v2" names v2)."""
    values = tuple(values)
    found: list[str] = []
    behind = {w.lower() for w in left_behind(query)}
    for word in _words(query):
        if word.lower() in behind:
            continue  # "from 2024-11-05 to 2025-06-18": the version wanted is the second
        if word.lower() in NAMED_CHANNELS:
            value = word.lower() if word.lower() in values else None
        elif _VERSION_WORD.fullmatch(word):
            value = resolve(word, values)
        else:
            continue
        if value is not None and value not in found:
            found.append(value)
    return found


# "from 4 to 5", "from v10 to v11", "from svelte 4 to svelte 5": a move between two versions
# names the one left behind and the one wanted, and the page that answers is about reaching the
# second (a "v5 migration guide"); searched as written, the source version's words ranked the
# guide *to* it first (Svelte's v4 guide for "migrate from svelte 4 to 5"). One optional word
# may stand before either version (a product name).
_MOVE = re.compile(
    r"\bfrom\s+(?:[^\W\d]\w*\s+)?(v?\d[\w.-]*)\s+to\s+(?:[^\W\d]\w*\s+)?(v?\d[\w.-]*)",
    re.IGNORECASE,
)


def holds_any(query: str, needles: tuple[str, ...]) -> bool:
    """False only where no match of a case-insensitive pattern can be in `query`: every match
    of the pattern holds one of `needles` (lower-case ASCII), and `query` is ASCII and holds
    none of them. A pattern starting with `\\b` is tried at every place of the query (no
    literal prefix for the regex engine to skip to): a search's dozen such passes were ~8 % of
    its ranking instructions, and most queries name no change, blog, proposal or move. A query
    with other characters is searched as before (under IGNORECASE `K` matches the Kelvin sign and
    `s` the long s, which lower() does not map)."""
    if not query.isascii():
        return True
    low = query.lower()
    return any(n in low for n in needles)


def left_behind(query: str) -> list[str]:
    """The versions a query moves away from (`4` in "migrate from svelte 4 to 5"), as
    written; none where source and target are the same word."""
    if not holds_any(query, ("from",)):
        return []
    moves = _MOVE.findall(query[:MAX_QUERY_CHARS])
    return list(dict.fromkeys(a.rstrip(".-") for a, b in moves if a.lower() != b.lower()))


def _as_name(words: list[str], lows: list[str], i: int) -> bool:
    """Whether an alias that is also an English word is written as a name here."""
    word = words[i]
    if word[0].isupper() and not (i == 0 and len(words) > 1 and lows[1] not in NAME_CONTEXT):
        return True
    return i + 1 < len(lows) and lows[i + 1] in NAME_CONTEXT


def query_class(query: str) -> str:
    """IDENTIFIER (names code: `links.create_many`, `#[track_caller]`, `R_LIBS_USER`, or a
    short query of such words), QUESTION (a sentence: a question word or mark, or eight words
    and more without code), else MIXED."""
    text = query[:MAX_QUERY_CHARS].strip()
    tokens = text.split()
    if not tokens:
        return MIXED
    # A word of lower-case letters only matches no form of _CODE (each needs a capital, a
    # digit or punctuation): it skips the regex, most of this function's time on a question.
    code = sum(1 for t in tokens if not (t.isalpha() and t.islower()) and _CODE.search(t))
    words = len(tokens)
    asks = text.endswith("?") or tokens[0].lower() in _QUESTION_WORDS
    if code and (code * 3 >= words or words <= 4):
        return IDENTIFIER
    if not code and (asks or words >= 8):
        return QUESTION
    return MIXED


def wants_every_word(query: str) -> bool:
    """Whether the rows naming every word of `query` should gain (lexical.coordination): a
    query of several identifiers (`REprintf Rvprintf`), or one asking to choose between things
    (`IG vs WG`, `resource or tool?`, `which headers …`), whose answer names both sides."""
    text = query[:MAX_QUERY_CHARS]
    if len(text.split(maxsplit=1)) < 2:
        return False  # one word: nothing to coordinate (most identifier lookups)
    return query_class(text) == IDENTIFIER or _CHOICE.search(text) is not None
