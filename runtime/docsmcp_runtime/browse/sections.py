"""Section ids, rule ids and cross references of chunks (`sections.parquet`, bundle-spec.md,
*Browse tables*): the attributes a hit carries and what `get_doc(section=...)` resolves."""

from __future__ import annotations

import re

import numpy as np

from ..bundle.reader import Bundle
from ..format import SECTIONS_FILE
from ..format.problems import list_parts

# A rule id may be given in its source form, `r[items.fn.generics]`.
_RULE_FORM = re.compile(r"^r\[(.+)\]$")
# References listed on one hit (the rest are in the chunk itself).
MAX_REFERENCES_SHOWN = 5


# A query that names a section and nothing else: `R-exts 5.10.2`, `R-lang section 3.5.2`,
# `§3.14`, `MS-DTYP 2.4.2.1`, `section 5`. A plain number needs a section word (else `404` or
# `2024` would be section lookups).
_SECTION_QUERY = re.compile(
    r"^\s*(?:(?P<doc>.{1,200}?)\s+)??(?:(?P<word>section|sect\.|sec\.|chapter|appendix|§)\s*)?"
    r"(?P<num>(?:[A-Z]|\d{1,3})(?:\.\d{1,3})+|\d{1,3}|[A-Z])\.?\s*$",
    re.IGNORECASE,
)


def section_query(query: str) -> tuple[str | None, str] | None:
    """(document or None, section number) when `query` is a section lookup, else None."""
    m = _SECTION_QUERY.match(query)
    if m is None:
        return None
    num, word = m.group("num"), m.group("word")
    if "." not in num and not word:
        return None
    if "." not in num and num.isalpha() and (word or "").lower() not in ("appendix", "section"):
        return None
    doc = (m.group("doc") or "").strip() or None
    return doc, num


def normalise_section(text: str) -> str:
    """`§ 3.14`, `Section 3.14.` and `3.14` name the same section; `r[a.b]` is the rule `a.b`."""
    text = text.strip()
    rule = _RULE_FORM.match(text)
    if rule:
        return rule.group(1)
    text = re.sub(r"^(?:§+\s*|section\s+)", "", text, flags=re.IGNORECASE)
    return text.rstrip(".").strip()


class SectionIndex:
    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        table = bundle.table(SECTIONS_FILE)
        self.available = table is not None
        n = bundle.n_chunks
        if table is None:
            self.section_ids: list[str | None] = [None] * n
            self.summaries: list[str | None] = [None] * n
            self._rule_offsets = np.zeros(n + 1, dtype=np.int64)
            self._rules: list[str] = []
            self._ref_offsets = np.zeros(n + 1, dtype=np.int64)
            self._refs = np.zeros(0, dtype=np.int64)
        else:
            self.section_ids = table.column("section_id").to_pylist()
            self.summaries = table.column("summary").to_pylist()
            self._rule_offsets, rules = list_parts(table.column("rule_ids").combine_chunks())
            self._rules = rules.to_pylist()
            self._ref_offsets, refs = list_parts(table.column("references").combine_chunks())
            self._refs = refs.to_numpy().astype(np.int64)
        self._by_id: dict[str, list[int]] | None = None

    def rule_ids(self, row: int) -> list[str]:
        return self._rules[self._rule_offsets[row] : self._rule_offsets[row + 1]]

    def references(self, row: int) -> np.ndarray:
        return self._refs[self._ref_offsets[row] : self._ref_offsets[row + 1]]

    def rows_named(self, section: str) -> list[int]:
        """Rows whose section id or one of whose rule ids is `section` (normalised)."""
        if self._by_id is None:
            by_id: dict[str, list[int]] = {}
            for row, sid in enumerate(self.section_ids):
                if sid:
                    by_id.setdefault(sid.lower(), []).append(row)
            for row in range(len(self._rule_offsets) - 1):
                for rule in self.rule_ids(row):
                    rows = by_id.setdefault(rule.lower(), [])
                    if not rows or rows[-1] != row:
                        rows.append(row)
            self._by_id = by_id
        return self._by_id.get(normalise_section(section).lower(), [])

    def names(self) -> list[str]:
        self.rows_named("")
        assert self._by_id is not None
        return list(self._by_id)

    def hit_fields(self, row: int) -> dict:
        """`section_id`, `rule_ids` and `references` of a hit, each only when it has any."""
        out: dict = {}
        sid = self.section_ids[row]
        if sid:
            out["section_id"] = sid
        rules = self.rule_ids(row)
        if rules:
            out["rule_ids"] = rules
        refs = self.references(row)[:MAX_REFERENCES_SHOWN]
        if len(refs):
            out["references"] = [self.reference(int(t)) for t in refs]
        return out

    def reference(self, row: int) -> dict:
        bundle = self.bundle
        # A page's preamble has no heading of its own: its breadcrumb ends with the page title.
        title = bundle.headings[row].as_py() or bundle.breadcrumbs[row].as_py().split(" > ")[-1]
        out = {"id": bundle.id(row), "title": title}
        summary = self.summaries[row]
        if summary:
            out["summary"] = summary
        return out
