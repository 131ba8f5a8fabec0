"""Text analysis shared by the builder (documents) and the runtime (queries).

Both sides must produce identical terms, so this module is the single source of truth and its
options (`format.AnalyzerConfig`: stemming and the stop-word list) are recorded in the bundle's
``metadata.json`` (``analyzer``) and read back at query time. bundle-spec.md, *Terms*, states
these rules for other readers.

Terms:
- an identifier such as ``links.createMany`` yields the whole (``links.createmany``), each
  separator-delimited part (``links``, ``createmany``) and each camelCase word (``create``,
  ``many``); ``TS_UD_CS_CORE`` yields ``ts_ud_cs_core``, ``ts``, ``ud``, ``cs``, ``core``;
- runs of CJK characters yield overlapping character bigrams (a lone character yields itself);
- words are NFKC-normalised and lower-cased, optionally plural-stemmed, optionally stop-filtered;
- adjacent words also form bigram terms ``"a b"`` (a space never occurs inside a term), which
  carry the phrase/proximity signal without positional postings;
- with `names` (bundles that say so), names the words alone lose are terms too: words joined by
  an ellipsis (``for...in``, ``do...while``: MDN's statements, whose words are stop words),
  operators (``??=``, ``?.``, ``<<``, ``=>``) and ``::`` paths (``std::vector``, which the
  words alone give as ``std``, ``vector``), after the line's other terms, never in bigrams;
  and a line that is one stop word alone (a title or heading ``this``, a link text `` `in` ``:
  MDN's ``this``, ``in`` and ``with`` pages) gives that word.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

from ..format import AnalyzerConfig
from ..records import record

__all__ = ["AnalyzerConfig", "Analysis", "analyze", "stem"]

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u31f0-\u31ff"
# A word character that is not CJK: CJK runs are handled separately as bigrams.
_W = rf"[^\W{_CJK}]"
# A sigil written before an identifier (`.Call`, `@decorator`, `$crate`, `--verbose`,
# `::std`) belongs to it when nothing word-like or separator-like is just before the sigil and a
# letter or `_` is just after: prose never puts those characters there, code and docs do.
_SIGIL = r"(?:--|::|[.@$])"
_TOKEN_PATTERN = (
    rf"(?P<cjk>[{_CJK}]+)"
    rf"|(?P<word>(?:(?<![\w{_CJK}.:/@$\-]){_SIGIL}(?=[^\W\d{_CJK}]))?{_W}+(?:[.:/@\-]{_W}+)*)"
)


@lru_cache(maxsize=1)
def _token() -> re.Pattern[str]:
    """The pattern over any text, compiled on the first text that is not ASCII: its Unicode
    classes take ~10 ms to compile, a sixth of the runtime's own import time, and most queries
    and documents are ASCII (`_ASCII_WORD`)."""
    return re.compile(_TOKEN_PATTERN)


# The same tokens in ASCII text (most of any corpus), found without match objects: NFKC leaves
# ASCII unchanged, no CJK character is ASCII, and an ASCII word character is [A-Za-z0-9_].
# Measured on 236k win32 lines (10 MB): analyze 1.52 -> 0.87 s with `_tokens` below.
_ASCII_WORD = re.compile(
    rf"(?:(?<![A-Za-z0-9_.:/@$\-]){_SIGIL}(?=[A-Za-z_]))?[A-Za-z0-9_]+(?:[.:/@\-][A-Za-z0-9_]+)*"
)
_SIGILS = ("--", "::", ".", "@", "$")
# Most lines hold no sigil that starts a word (speakeasy-sdks: 3 %): they take the plain pattern,
# four times as fast as the one above. A sigil before a letter is found by a pattern without
# look-behind (fast), and what stands before it checked here.
_ASCII_PLAIN = re.compile(r"[A-Za-z0-9_]+(?:[.:/@\-][A-Za-z0-9_]+)*")
_ASCII_SIGIL_AT = re.compile(rf"{_SIGIL}[A-Za-z_]")
_NOT_BEFORE_SIGIL = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:/@$-"
)


def _has_sigil(text: str) -> bool:
    """Whether an ASCII line holds a sigil that starts a word (`_ASCII_WORD`'s look-behind)."""
    for m in _ASCII_SIGIL_AT.finditer(text):
        at = m.start()
        if at == 0 or text[at - 1] not in _NOT_BEFORE_SIGIL:
            return True
    return False


# Names (`AnalyzerConfig.names`): words joined by `...` (NFKC makes `…` three dots), then runs of
# two or more operator characters and separators holding at least one operator character. A
# lone `?` or `=` is prose or an assignment; `--` and `::` are sigils, `//` a path or comment.
# Two passes, each a plain scan: one pattern for both, tried at every position, tripled the
# analysis time of speakeasy-sdks' lines (0.3 -> 0.9 s); these add ~20 %.
_OPERATOR = frozenset("!%&*+<=>?^|~")
_OPERATORS = re.escape("".join(sorted(_OPERATOR)))
_HAS_OPERATOR = re.compile(rf"[{_OPERATORS}]")
_RUN = re.compile(rf"[{_OPERATORS}.:/\-]{{2,}}")
_ASCII_ELLIPSIS = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z0-9_]+(?:\.\.\.[A-Za-z0-9_]+)+")
_ELLIPSIS_PATTERN = rf"(?<!{_W}){_W}+(?:\.\.\.{_W}+)+"
# What marks a name among a bundle's terms (UTF-8): no other term holds an operator character
# or `...` (a word's separators come one at a time); an entry-name term starts with \x01
# (entry_names.MARK).
NAME_MARK = re.compile(rb"[!%&*+<=>?^|~]|\.\.\.|[A-Za-z0-9_]::[A-Za-z0-9_]|\x01")
# A path of words joined by `::` (`std::vector`, `tokio::spawn`: C++, Rust, PHP, Ruby), a word
# when it starts with a letter or `_` and no word character or `:` is just before it.
_ASCII_PATH = re.compile(r"(?<![A-Za-z0-9_:])[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)+")


@lru_cache(maxsize=1)
def _ellipsis() -> re.Pattern[str]:
    """`_ASCII_ELLIPSIS` over any text (compiled when first needed, as `_token`)."""
    return re.compile(_ELLIPSIS_PATTERN)


def names(text: str) -> list[str]:
    """The names in an (NFKC-normalised) line, lower-cased: its ellipsis names, then its
    operator runs, each in text order."""
    found: list[str] = []
    if "..." in text:
        pattern = _ASCII_ELLIPSIS if text.isascii() else _ellipsis()
        found += [n.lower() for n in pattern.findall(text)]
    if _HAS_OPERATOR.search(text) is not None:
        found += [r for r in _RUN.findall(text) if not _OPERATOR.isdisjoint(r)]
    if "::" in text:
        found += [p.lower() for p in _ASCII_PATH.findall(text)]
    return found


# A stop word alone on its line, marks around it: a name (`analyze`).
_ALONE_CHARS = 24
_ALONE_MARKS = " \t`*_"


def _alone(text: str, config: AnalyzerConfig) -> str:
    """The stop word `text` is alone (besides white space, backticks and emphasis marks),
    lower-cased; "" when it is anything else."""
    word = text.strip(_ALONE_MARKS).lower()
    return word if word in config.stopwords and word.isalpha() else ""


_SEPARATORS = re.compile(r"[.:/@\-]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+|[^\W\d_]+")


# Distinct tokens remembered per analyser options (identifiers and words repeat across lines);
# `_expand` itself is not cached: `_tokens` is its only caller.
TOKEN_CACHE = 200_000


def stem(word: str) -> str:
    """Harman's 'S' stemmer: folds English plurals only, which never mangles identifiers."""
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    if word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if word.endswith("es") and not word.endswith(("aes", "ees", "oes", "ses", "xes")):
        return word[:-1]
    if word.endswith("s") and not word.endswith(("us", "ss", "is")):
        return word[:-1]
    return word


def _expand(raw: str, do_stem: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return (extra whole-form terms, word sequence) for one raw identifier-like token."""
    sigil = raw.startswith(_SIGILS)
    body = raw[2:] if raw.startswith(("--", "::")) else raw[1:] if sigil else raw
    words: list[str] = []
    wholes: list[str] = []
    for raw_part in _SEPARATORS.split(body):
        part = raw_part.strip("_")
        if not part:
            continue
        pieces = [p for p in part.split("_") if p]
        sub: list[str] = []
        for piece in pieces:
            sub.extend(_CAMEL.findall(piece) or [piece])
        lowered = [s.lower() for s in sub]
        if len(lowered) > 1:
            wholes.append(part.lower())
        if raw_part.startswith("__") and raw_part.lower() not in wholes:
            wholes.append(raw_part.lower())  # a dunder (`object.__slots__`): as written
        words.extend(lowered)
    lowered_raw = body.lower()
    if len(words) > 1 and lowered_raw not in wholes:
        wholes.insert(0, lowered_raw)
    if sigil and words:
        wholes.insert(0, raw.lower())  # `.Call`, `$crate`: the name as written, too
    if do_stem:
        words = [stem(w) for w in words]
    return tuple(wholes), tuple(words)


@record
class Analysis:
    terms: list[str]  # every unigram term, with repetition (term frequency counts)
    bigrams: list[str]  # adjacent-word pairs, with repetition
    # How many of `terms` are names (the last ones): a field's length leaves them out, so
    # adding them changes no other term's impact (bundle-spec.md, *Full-text index*).
    n_names: int = 0


Token = Callable[[str], tuple[tuple[str, ...], tuple[str, ...]]]


@lru_cache(maxsize=16)
def _tokens(config: AnalyzerConfig) -> Token:
    """One identifier-like token's (terms, words of the phrase sequence) under `config`:
    its wholes then its words without stop words, and those words. Remembered per token."""
    stop = frozenset(config.stopwords)

    @lru_cache(maxsize=TOKEN_CACHE)
    def token(raw: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        wholes, words = _expand(raw, config.stem)
        kept = tuple(w for w in words if w not in stop)
        return wholes + kept, kept

    return token


def analyze(text: str, config: AnalyzerConfig) -> Analysis:
    token = _tokens(config)
    terms: list[str] = []
    sequence: list[str] = []
    if text.isascii():  # (constant time: CPython records it)
        words = _ASCII_WORD if _has_sigil(text) else _ASCII_PLAIN
        for raw in words.findall(text):
            found, words = token(raw)
            terms += found
            sequence += words
    else:
        text = unicodedata.normalize("NFKC", text)
        for m in _token().finditer(text):
            cjk = m.group("cjk")
            if cjk is not None:
                grams = [cjk] if len(cjk) == 1 else [cjk[i : i + 2] for i in range(len(cjk) - 1)]
                terms.extend(grams)
                sequence.extend(grams)
                continue
            found, words = token(m.group("word"))
            terms += found
            sequence += words
    found_names = names(text) if config.names else []
    if config.names and len(text) <= _ALONE_CHARS and (alone := _alone(text, config)):
        found_names.append(alone)
    terms += found_names
    bigrams = [f"{a} {b}" for a, b in zip(sequence, sequence[1:], strict=False)]
    return Analysis(terms, bigrams, len(found_names))
