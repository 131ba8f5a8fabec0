"""Section numbers and rule ids: `section_id` reads a numbered heading (`2.4.1 Scope`), and the
patterns of rule markers and grammar blocks that cross references and summaries share.
"""

from __future__ import annotations

import re

# A line that holds only a rule marker; group 1 is the rule id. Data, not code: change this
# pattern to support another marker syntax (mdBook-spec writes `r[items.fn.generics]`).
RULE_ID_LINE = re.compile(r"^[ \t]{0,3}r\[([A-Za-z0-9_][A-Za-z0-9_.:\-]*)\][ \t]*$", re.MULTILINE)
# Anchor prefixes a renderer gives rule markers (mdBook-spec: `#r-items.fn.generics`).
RULE_ANCHOR_PREFIXES = ("r-",)

# Grammar productions: in a fenced block whose info string starts with GRAMMAR_FENCE, each
# GRAMMAR_LINE defines a production that links reach as `#grammar-Name` (GRAMMAR_ANCHOR_PREFIX)
# or by its bare name (mdBook-spec grammar blocks: `Function ->`).
GRAMMAR_FENCE = "grammar"
GRAMMAR_LINE = re.compile(r"^[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*->", re.MULTILINE)
GRAMMAR_ANCHOR_PREFIX = "grammar-"

# Words that may introduce a section number in a heading or in a text reference.
SECTION_WORDS = ("section", "sect", "sec", "chapter", "appendix", "annex", "part", "clause")
# Words that mark a heading as a release/version heading rather than a numbered section.
VERSION_WORDS = frozenset({"release", "released", "version", "versions", "changelog", "rc"})

_NUM = r"(?:(?-i:[A-Z])(?:\d{1,3})?(?:\.\d{1,3})+|\d{1,3}(?:\.\d{1,3})*|(?-i:[A-Z]))"
_SECTION_HEADING = re.compile(
    rf"^(?:(?P<word>{'|'.join(SECTION_WORDS)})\.?\s+|(?P<sign>§)\s*)?"
    rf"(?P<num>{_NUM})(?P<dot>\.?)(?P<rest>(?:[\s:)\u2013\u2014-].*)?)$",
    re.IGNORECASE | re.DOTALL,
)
# Text references: `see section 2.3.3`, `Section 5.9.1 [Title]`, `§3.14`, `§ 3.14`,
# `sections 2.1`, and with a document in brackets before it: `[MS-DTYP] section 2.3.3`.
_REF_NUM = r"(?:(?-i:[A-Z])\d{0,3}(?:\.\d{1,3})+|\d{1,3}(?:\.\d{1,3})*)"
_TEXT_REF = re.compile(
    r"(?:\[(?P<doc>[^\[\]\n]{1,80})\][ \t]*(?:,[ \t]*)?)?"
    rf"(?:\b(?:sections?|sect\.|sec\.)[ \t]+|§[ \t]*)(?P<num>{_REF_NUM})(?![\w.]*\w)",
    re.IGNORECASE,
)


def _has_text_ref(text: str) -> bool:
    """Cheap test before `_TEXT_REF`: whether `text` may hold a text reference at all."""
    if "§" in text:
        return True
    low = text.lower()
    return "section" in low or "sec." in low or "sect." in low


def section_id(heading: str) -> str | None:
    """The section number of a numbered heading, else None.

    `2.4.2.1 SID String Format Syntax` -> "2.4.2.1", `D1.2.3 Exception vectors` -> "D1.2.3",
    `§3.14 Foo` -> "3.14", `Appendix A.2 Bar` -> "A.2", `1. Introduction` -> "1",
    `Chapter 4` -> "4". Not numbers: years and status codes (`2024 roadmap`, `404 errors`: a
    plain number needs a trailing dot), words (`1password`), versions (`v1.2.0`, `0.5.x`,
    `1.2.0` with a zero part, any heading mentioning a release or version), a lone letter
    without a section word (`A Tour`).
    """
    text = heading.strip().lstrip("#").strip()
    if not text or len(text) > 500:
        return None
    m = _SECTION_HEADING.match(text)
    if m is None:
        return None
    num, rest, dotted = m.group("num"), m.group("rest").strip(), bool(m.group("dot"))
    prefixed = bool(m.group("word") or m.group("sign"))
    parts = num.split(".")
    if num[0].isalpha():
        if num[0] == "V" and num[1:2].isdigit():
            return None  # V1.2: a version
        if len(parts) == 1 and not (prefixed and len(num) == 1):
            return None  # a lone letter (`A Tour`) or `H2 headings`, `S3 buckets`
    elif len(parts) == 1 and not (prefixed or dotted):
        return None  # `404 errors`, `3 ways to ...`
    if not prefixed and not rest:
        return None  # a bare `1.2` heading is a version more often than a section
    if m.group("word") and m.group("word").lower() == "part" and not rest:
        return None
    if len(parts) >= 2 and (parts[0] == "0" or (len(parts) >= 3 and "0" in parts[1:])):
        return None  # 0.5, 1.2.0: versions (sections are numbered from 1)
    words = re.findall(r"[a-z]+", rest.lower())
    if VERSION_WORDS.intersection(words):
        return None
    return num
