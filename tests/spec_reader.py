"""A docsmcp bundle reader written from bundle-spec.md alone.

It uses numpy, pyarrow, hashlib, json, unicodedata and the standard library, and nothing from
docsmcp or docsmcp_runtime: when it finds what the runtime finds, the spec is complete enough to
reimplement a reader. The analyzer follows the spec's *Terms* section step by step; character
classes come from `unicodedata` general categories and code point ranges as the spec words them,
never from regular-expression classes. The default stop list is read from the spec text itself.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

SPEC = Path(__file__).resolve().parents[1] / "bundle-spec.md"
ANALYZER_NAME = "docsmcp-1"


def spec_section(title: str) -> str:
    """The text of the `## {title}` section of bundle-spec.md."""
    text = SPEC.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def _spec_default_stopwords() -> tuple[str, ...]:
    """*Terms*: the default stop list is the section's one fenced block."""
    blocks = spec_section("Terms").split("```")[1::2]
    assert len(blocks) == 1, "the Terms section should hold exactly one fenced block"
    return tuple(blocks[0].split())


DEFAULT_STOPWORDS = _spec_default_stopwords()

# -- character classes (*Terms*) --------------------------------------------------------------

CJK_RANGES = (
    (0x3040, 0x30FF),
    (0x31F0, 0x31FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
)
SEPARATORS = frozenset(".:/@-")
SIGILS = ("--", "::", ".", "@", "$")  # longest first
LF = "\n"


@cache
def is_cjk(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in CJK_RANGES)


@cache
def is_word(ch: str) -> bool:
    """Not CJK, and general category L* or N*, or `_`."""
    return not is_cjk(ch) and (ch == "_" or unicodedata.category(ch)[0] in ("L", "N"))


@cache
def is_letter(ch: str) -> bool:
    """A word character other than `_` and Nd."""
    return is_word(ch) and ch != "_" and unicodedata.category(ch) != "Nd"


def is_upper(ch: str) -> bool:
    return "A" <= ch <= "Z"


def is_lower(ch: str) -> bool:
    return "a" <= ch <= "z"


def is_digit09(ch: str) -> bool:
    return "0" <= ch <= "9"


def _run_end(s: str, i: int, member: Callable[[str], bool]) -> int:
    """End of the maximal run of `member` characters starting at i."""
    while i < len(s) and member(s[i]):
        i += 1
    return i


# -- analysis (*Terms*) -----------------------------------------------------------------------


@dataclass(frozen=True)
class Analyzer:
    stem: bool
    stopwords: frozenset[str]
    names: bool = False

    @classmethod
    def from_metadata(cls, analyzer: dict) -> Analyzer:
        """`{"name": "docsmcp-1", "stem": bool, "stopwords": [str, ...] | true | false}`."""
        if analyzer.get("name") != ANALYZER_NAME:
            raise ValueError(f"unknown analyzer {analyzer.get('name')!r}")
        stem, stop = analyzer["stem"], analyzer["stopwords"]
        if not isinstance(stem, bool):
            raise ValueError(f"analyzer.stem must be a boolean, not {stem!r}")
        if stop is True:
            words: tuple[str, ...] = DEFAULT_STOPWORDS
        elif stop is False:
            words = ()
        elif isinstance(stop, list) and all(isinstance(w, str) for w in stop):
            keys = [w.encode() for w in stop]
            if any(a >= b for a, b in zip(keys, keys[1:], strict=False)):
                raise ValueError("analyzer.stopwords must be sorted in byte order, no duplicates")
            words = tuple(stop)
        else:
            raise ValueError(f"analyzer.stopwords must be a list of strings, not {stop!r}")
        names = analyzer.get("names", False)
        if not isinstance(names, bool):
            raise ValueError(f"analyzer.names must be a boolean, not {names!r}")
        return cls(stem, frozenset(words), names)


def tokens(line: str) -> Iterator[tuple[str, str]]:
    """Step 2: ("cjk", run) and ("word", word) tokens, left to right."""
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if is_cjk(ch):
            j = _run_end(line, i, is_cjk)
            yield "cjk", line[i:j]
        elif is_word(ch) or (sigil := _sigil(line, i)):
            start = i
            if not is_word(ch):
                i += len(sigil)
            j = _run_end(line, i, is_word)
            while j + 1 < n and line[j] in SEPARATORS and is_word(line[j + 1]):
                j = _run_end(line, j + 1, is_word)
            yield "word", line[start:j]
        else:
            j = i + 1
        i = j


def _sigil(line: str, i: int) -> str:
    """The sigil at `i` that starts a word, else "": a character before it is none of a word
    character, a CJK character, a separator or `$`, and the character after it is a word
    character other than Nd."""
    if i > 0:
        before = line[i - 1]
        if is_word(before) or is_cjk(before) or before in SEPARATORS or before == "$":
            return ""
    for sigil in SIGILS:
        after = i + len(sigil)
        if line.startswith(sigil, i) and after < len(line):
            nxt = line[after]
            if is_word(nxt) and unicodedata.category(nxt) != "Nd":
                return sigil
    return ""


def grams(run: str) -> list[str]:
    """Step 3: one character is itself; n >= 2 give their n - 1 overlapping pairs."""
    return [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]


def sub_words(piece: str) -> list[str]:
    """The sub-word scan of one piece (not yet lower-cased)."""
    out: list[str] = []
    i, n = 0, len(piece)
    while i < n:
        ch = piece[i]
        if is_upper(ch):
            j = _run_end(piece, i, is_upper)
            after = piece[j] if j < n else ""
            if j - i >= 2 and is_lower(after):
                j -= 1
            elif j - i == 1 and is_lower(after):
                j = _run_end(piece, j, is_lower)
        elif is_lower(ch):
            j = _run_end(piece, i, is_lower)
        elif is_digit09(ch):
            j = _run_end(piece, i, is_digit09)
        elif unicodedata.category(ch) == "Nd":
            i += 1  # another Nd digit: no sub-word, move one character on
            continue
        else:
            j = _run_end(piece, i, is_letter)
            assert j > i, f"{ch!r} cannot occur in a piece"
        out.append(piece[i:j])
        i = j
    return out


def stem(word: str) -> str:
    """Harman's S-stemmer: four or more characters, all in a-z; the first rule that holds."""
    if len(word) < 4 or not all(is_lower(c) for c in word):
        return word
    if word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if word.endswith("es") and not word.endswith(("aes", "ees", "oes", "ses", "xes")):
        return word[:-1]
    if word.endswith("s") and not word.endswith(("us", "ss", "is")):
        return word[:-1]
    return word


def _split_at_separators(word: str) -> list[str]:
    parts, start = [], 0
    for i, ch in enumerate(word):
        if ch in SEPARATORS:
            parts.append(word[start:i])
            start = i + 1
    parts.append(word[start:])
    return parts


@lru_cache(maxsize=1 << 16)  # words repeat a lot; the result only depends on the word
def expand(word: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Steps 4 and 5: (whole forms, lower-cased sub-words) of one word."""
    wholes: list[str] = []
    subs: list[str] = []
    sigil = next((x for x in SIGILS if word.startswith(x)), "")
    full, word = word, word[len(sigil) :]
    for raw_part in _split_at_separators(word):
        part = raw_part.strip("_")
        if not part:
            continue
        found: list[str] = []
        for piece in part.split("_"):
            if piece:
                found.extend(sub_words(piece) or [piece])
        found = [s.lower() for s in found]
        if len(found) >= 2:
            wholes.append(part.lower())
        if raw_part.startswith("__") and raw_part.lower() not in wholes:
            wholes.append(raw_part.lower())
        subs.extend(found)
    if len(subs) >= 2 and word.lower() not in wholes:
        wholes.insert(0, word.lower())
    if sigil and subs:
        wholes.insert(0, full.lower())
    return tuple(wholes), tuple(subs)


def analyze_line(line: str, analyzer: Analyzer) -> tuple[list[str], list[str]]:
    """(terms, bigram terms) of one line, with repetition."""
    line = unicodedata.normalize("NFKC", line)
    terms: list[str] = []
    sequence: list[str] = []
    for kind, text in tokens(line):
        if kind == "cjk":
            terms.extend(grams(text))
            sequence.extend(grams(text))
            continue
        wholes, subs = expand(text)
        terms.extend(wholes)
        for sub in subs:
            if analyzer.stem:
                sub = stem(sub)
            if sub not in analyzer.stopwords:
                terms.append(sub)
                sequence.append(sub)
    if analyzer.names:
        terms.extend(n.lower() for n in names(line))
        terms.extend(p.lower() for p in paths(line))
        alone = line.strip(" \t`*_").lower()
        if len(line) <= 24 and alone in analyzer.stopwords and alone.isalpha():
            terms.append(alone)  # (a stop word alone on its line: a name)
    bigrams = [f"{a} {b}" for a, b in zip(sequence, sequence[1:], strict=False)]
    return terms, bigrams


OPERATORS = frozenset("!%&*+<=>?^|~")


def names(line: str) -> Iterator[str]:
    """Step 7: ellipsis names, left to right, then operator runs, left to right, as written."""
    i, n = 0, len(line)
    while i < n:
        if is_word(line[i]) and (i == 0 or not is_word(line[i - 1])):
            j = _run_end(line, i, is_word)
            k = j
            while line.startswith("...", k) and k + 3 < n and is_word(line[k + 3]):
                k = _run_end(line, k + 3, is_word)
            if k > j:
                yield line[i:k]
            i = k
        else:
            i += 1
    run_chars = OPERATORS | (SEPARATORS - {"@"})
    i = 0
    while i < n:
        j = _run_end(line, i, lambda c: c in run_chars)
        if j - i >= 2 and any(c in OPERATORS for c in line[i:j]):
            yield line[i:j]
        i = max(j, i + 1)


def _ascii_word(c: str) -> bool:
    return c == "_" or ("a" <= c.lower() <= "z") or "0" <= c <= "9"


def paths(line: str) -> Iterator[str]:
    """Step 7's paths: ASCII runs joined by `::`, each further run starting with a letter or
    `_`, the first not preceded by an ASCII word character or `:`."""
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if (c == "_" or "a" <= c.lower() <= "z") and (
            i == 0 or not (_ascii_word(line[i - 1]) or line[i - 1] == ":")
        ):
            j = _run_end(line, i, _ascii_word)
            k = j
            while line.startswith("::", k) and k + 2 < n:
                d = line[k + 2]
                if not (d == "_" or "a" <= d.lower() <= "z"):
                    break
                k = _run_end(line, k + 2, _ascii_word)
            if k > j:
                yield line[i:k]
            i = max(k, i + 1)
        else:
            i += 1


# -- *Stem variants*: Snowball English steps 0 to 1c, with the spec's list of its special cases --

V = "aeiouy"
EXCEPTIONAL = dict(
    skis="ski", skies="sky", dying="die", lying="lie", tying="tie", idly="idl", gently="gentl",
    ugly="ugli", early="earli", only="onli", singly="singl", sky="sky", news="news",
    howe="howe", atlas="atlas", cosmos="cosmos", bias="bias", andes="andes",
)  # fmt: skip
R1_PREFIXES = "gener commun arsen past univers later emerg organ inter".split()
LEFT_AFTER_1A = set("inning outing canning herring earring proceed exceed succeed evening".split())


def _is_word_term(term: str) -> bool:
    return len(term) >= 3 and all("a" <= c <= "z" for c in term)


def _after_vowel_consonant(w: str, start: int) -> int:
    """Index after the first non-vowel that follows a vowel, from `start`; len(w) if none."""
    i = start
    while i < len(w) and w[i] not in V:
        i += 1
    while i < len(w) and w[i] in V:
        i += 1
    return min(i + 1, len(w))


def _ends_short_syllable(w: str) -> bool:
    if w.endswith("past"):
        return True
    if len(w) == 2:
        return w[0] in V and w[1] not in V
    return len(w) >= 3 and w[-3] not in V and w[-2] in V and w[-1] not in V + "wxY"


def inflection_stem(word: str) -> str:
    if not _is_word_term(word):
        return word
    if word in EXCEPTIONAL:
        return EXCEPTIONAL[word]
    w = ""
    for c in word:  # left to right: a y after a y made Y is a vowel again
        w += "Y" if c == "y" and (not w or w[-1] in V) else c
    r1 = next((len(p) for p in R1_PREFIXES if w.startswith(p)), None)
    if r1 is None:
        r1 = _after_vowel_consonant(w, 0)
    # step 1a
    if w.endswith("sses"):
        w = w[:-4] + "ss"
    elif w[-3:] in ("ied", "ies"):
        w = w[:-3] + ("i" if len(w) > 4 else "ie")
    elif w.endswith("s") and not w.endswith(("us", "ss")) and any(c in V for c in w[:-2]):
        w = w[:-1]
    if w in LEFT_AFTER_1A:
        return w
    # step 1b
    for suffix in ("eedly", "eed", "ingly", "edly", "ing", "ed"):
        if not w.endswith(suffix):
            continue
        rest = w[: -len(suffix)]
        if suffix.startswith("eed"):
            if len(rest) >= r1:
                w = rest + "ee"
        elif any(c in V for c in rest):
            w = rest
            if w[-2:] in ("at", "bl", "iz"):
                w += "e"
            elif len(w) >= 2 and w[-1] == w[-2] and w[-1] in "bdfgmnprt":
                if not (len(w) == 3 and w[0] in "aeo"):
                    w = w[:-1]
            elif r1 >= len(w) and _ends_short_syllable(w):
                w += "e"
        break
    # step 1c
    if len(w) >= 3 and w[-1] in "yY" and w[-2] not in V:
        w = w[:-1] + "i"
    return w.replace("Y", "y")


def query_terms(query: str, analyzer: Analyzer) -> tuple[list[str], list[str]]:
    """Distinct terms and distinct bigram terms of all lines, in order of first occurrence."""
    terms: dict[str, None] = {}
    bigrams: dict[str, None] = {}
    for line in query.split(LF):
        t, b = analyze_line(line, analyzer)
        terms.update(dict.fromkeys(t))
        bigrams.update(dict.fromkeys(b))
    return list(terms), list(bigrams)


# -- the bundle (*Files*, *metadata.json*, *Full-text index*, *Facets*) -------------------------


class SpecReader:
    """Follows bundle-spec.md literally."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.meta = json.loads((self.root / "metadata.json").read_text(encoding="utf-8"))
        assert self.meta["format"] == "docsmcp-bundle" and self.meta["format_version"] == 1
        self._verify_files()
        self.arr: dict[str, np.ndarray] = {}
        for name, info in self.meta["files"].items():
            if name.endswith(".bin"):
                self.arr[name[:-4]] = self._map(name, info)
        self.rows = pq.read_table(self.root / "chunks.parquet").to_pylist()
        self._check_shapes()
        self.analyzer = Analyzer.from_metadata(self.meta["analyzer"])
        self.n_terms = len(self.arr["term_offsets"]) - 1

    def _verify_files(self) -> None:
        digest = hashlib.sha256()
        for name in sorted(self.meta["files"], key=lambda n: n.encode()):
            info = self.meta["files"][name]
            data = (self.root / name).read_bytes()
            assert len(data) == info["bytes"], name
            assert hashlib.sha256(data).hexdigest() == info["sha256"], name
            digest.update(f"{name}\0{info['sha256']}\n".encode())
        assert self.meta["bundle_id"] == digest.hexdigest()[:32]

    def _map(self, name: str, info: dict) -> np.ndarray:
        dtype, shape = np.dtype(info["dtype"]), tuple(info["shape"])
        if info["bytes"] == 0:  # an array with zero elements is an empty file
            return np.zeros(shape, dtype)
        return np.memmap(self.root / name, dtype=dtype, mode="r", shape=shape)

    def _check_shapes(self) -> None:
        a = self.arr
        n_terms = len(a["term_offsets"]) - 1
        assert len(a["postings_offsets"]) == n_terms + 1
        assert int(a["term_offsets"][-1]) == len(a["terms"])
        assert int(a["postings_offsets"][-1]) == len(a["postings_docs"])
        assert len(a["postings_docs"]) == len(a["postings_impacts"])
        if "stem_rings" in a:  # *Stem variants*
            rings = a["stem_rings"]
            assert rings.ndim == 2 and rings.shape[1] == 2
            assert np.all(np.diff(rings[:, 0].astype(np.int64)) > 0)
            assert len(rings) == 0 or int(rings[:, 0].max()) < n_terms
        if "impact_levels" in a:  # *Impact codes*
            assert a["postings_impacts"].dtype == np.uint8 and a["impact_levels"].shape == (256,)
        assert a["facets"].shape == (len(self.rows), len(self.meta["taxonomy"]))

    def term(self, i: int) -> bytes:
        off = self.arr["term_offsets"]
        return self.arr["terms"][int(off[i]) : int(off[i + 1])].tobytes()

    def lookup(self, term: str) -> int | None:
        """Binary search of the byte-ordered dictionary."""
        key, lo, hi = term.encode(), 0, self.n_terms
        while lo < hi:
            mid = (lo + hi) // 2
            if self.term(mid) < key:
                lo = mid + 1
            else:
                hi = mid
        return lo if lo < self.n_terms and self.term(lo) == key else None

    def impacts(self, start: int, end: int) -> np.ndarray:
        """*Impact codes*: float32 impacts of postings start..end-1, each a code's level in
        impact_levels.bin, or float16 values in bundles without it."""
        stored = self.arr["postings_impacts"][start:end]
        if "impact_levels" in self.arr:
            return self.arr["impact_levels"][stored.astype(np.intp)].astype(np.float32)
        return stored.astype(np.float32)

    def impact_sum(
        self, terms: list[str], weight: np.float32 | None = None, total: np.ndarray | None = None
    ) -> np.ndarray:
        """float32 sum per row of the impacts of `terms` (times `weight`), term by term in
        that order, added to `total` when given."""
        total = np.zeros(len(self.rows), np.float32) if total is None else total
        for t in terms:
            i = self.lookup(t)
            if i is not None:
                s, e = (int(x) for x in self.arr["postings_offsets"][i : i + 2])
                values = self.impacts(s, e)
                total[self.arr["postings_docs"][s:e]] += (
                    values if weight is None else values * weight
                )
        return total

    def _ring(self, term_id: int) -> list[int]:
        """*Stem variants*: the terms of `term_id`'s group from it around the ring, at most 33."""
        rings = self.arr.get("stem_rings")
        if rings is None:
            return [term_id]
        ids = rings[:, 0]
        at = int(np.searchsorted(ids, term_id))
        if at == len(ids) or int(ids[at]) != term_id:
            return [term_id]
        out, row = [term_id], int(rings[at, 1])
        while row != at and len(out) < 33:
            out.append(int(ids[row]))
            row = int(rings[row, 1])
        return out

    def variants(self, term: str) -> list[str]:
        """*Stem variants*: the terms a word term reaches, in order."""
        if not _is_word_term(term) or "stem_rings" not in self.arr:
            return []
        i = self.lookup(term)
        if i is not None:
            return [self.term(t).decode() for t in self._ring(i)[1:]]
        s = inflection_stem(term)
        forms = [s, s + "e"] + ([s[:-1] + "y"] if s.endswith("i") else [])
        for form in forms:
            same = inflection_stem(form) == s or form == s + "e"
            if form != term and _is_word_term(form) and same and self.lookup(form) is not None:
                return [self.term(t).decode() for t in self._ring(self.lookup(form))]
        return []

    def scores(self, query: str) -> np.ndarray:
        """`lexical + phrase_weight * proximity` per row, in float32; `lexical` with the
        variants of each term at `stem_weight` after the terms' own impacts."""
        terms, bigrams = query_terms(query, self.analyzer)
        weight = np.float32(self.meta["lexical"]["phrase_weight"])
        lexical = self.impact_sum(terms)
        stem_weight = self.meta["lexical"].get("stem_weight", 0)
        if stem_weight > 0:
            others = [v for t in terms for v in self.variants(t)]
            self.impact_sum(others, np.float32(stem_weight), total=lexical)
        return lexical + self.impact_sum(bigrams) * weight

    def facet_mask(self, filters: dict[str, str]) -> np.ndarray:
        """*Facets*: the value's rows; with `auto_include`, also the rows without a value of
        their own whose other key (not filtered) has one of the listed values; with
        `include_unset`, also every row without a value."""
        taxonomy = self.meta["taxonomy"]
        keys = list(taxonomy)
        facets = self.arr["facets"]
        mask = np.ones(len(self.rows), bool)
        for key, value in filters.items():
            column = facets[:, keys.index(key)]
            selected = column == 1 + taxonomy[key]["values"].index(value)
            for other, values in taxonomy[key].get("auto_include", {}).items():
                if other not in filters:
                    codes = [1 + taxonomy[other]["values"].index(v) for v in values]
                    selected |= np.isin(facets[:, keys.index(other)], codes) & (column == 0)
            if taxonomy[key].get("include_unset", False):
                selected |= column == 0
            mask &= selected
        return mask

    def search(self, query: str, limit: int = 10, filters: dict | None = None) -> list[str]:
        """Chunk ids of the best `limit` matching rows: score descending, ties in row order."""
        scores = self.scores(query)
        keep = (scores > 0) & self.facet_mask(filters or {})
        rows = sorted(np.flatnonzero(keep).tolist(), key=lambda r: (-scores[r], r))
        return [self.rows[r]["id"] for r in rows[:limit]]
