"""Section ids, rule ids and cross references of chunks (`sections.parquet`, bundle-spec.md,
*Browse tables*): the attributes a hit carries and what `get_doc(section=...)` resolves."""

from __future__ import annotations

import re
from functools import cached_property
from typing import Any

import numpy as np

from ..bundle.reader import Bundle
from ..format import SECTIONS_FILE
from ..records import record

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
    """The sections table, read on first need. What one hit shows (`hit_fields`, `references`)
    comes from the display store when the bundle has one, so a search never reads the table;
    finding sections by id (`rows_named`) reads it whole."""

    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        self.available = SECTIONS_FILE in bundle.metadata.files
        self._display = bundle.display if self.available else None
        self._by_id: dict[str, list[int]] | None = None

    def load(self) -> None:
        """Read the table now unless the display store serves hits (BundleError if damaged):
        without a display store every hit needs it."""
        if self._display is None:
            _ = self._table

    @cached_property
    def _table(self) -> _Sections:
        table = self.bundle.table(SECTIONS_FILE)
        n = self.bundle.n_chunks
        if table is None:
            empty = np.zeros(n + 1, dtype=np.int64)
            return _Sections([None] * n, [None] * n, empty, [], empty, np.zeros(0, np.int64))
        from ..format.table_problems import list_parts

        rule_offsets, rules = list_parts(table.column("rule_ids").combine_chunks())
        ref_offsets, refs = list_parts(table.column("references").combine_chunks())
        return _Sections(
            table.column("section_id").to_pylist(),
            table.column("summary").to_pylist(),
            rule_offsets,
            rules.to_pylist(),
            ref_offsets,
            refs.to_numpy().astype(np.int64),
        )

    def _rule_ids(self, row: int) -> list[str]:
        """A row's rule ids from the sections table (hit_fields reads a display store's record)."""
        t = self._table
        return t.rules[t.rule_offsets[row] : t.rule_offsets[row + 1]]

    def references(self, row: int) -> np.ndarray:
        if self._display is not None:
            refs = self._display.row(row).header.get("references", ())
            return np.asarray(refs, dtype=np.int64)
        t = self._table
        return t.refs[t.ref_offsets[row] : t.ref_offsets[row + 1]]

    def _field(self, row: int, name: str) -> str | None:
        """`section_id` or `summary` of a row from the sections table (None when it has none);
        hit_fields and reference read a display store's record instead."""
        t = self._table
        return (t.section_ids if name == "section_id" else t.summaries)[row]

    def rows_named(self, section: str) -> list[int]:
        """Rows whose section id or one of whose rule ids is `section` (normalised)."""
        if self._by_id is None:
            t = self._table
            by_id: dict[str, list[int]] = {}
            for row, sid in enumerate(t.section_ids):
                if sid:
                    by_id.setdefault(sid.lower(), []).append(row)
            for row in range(len(t.rule_offsets) - 1):
                for rule in t.rules[t.rule_offsets[row] : t.rule_offsets[row + 1]]:
                    rows = by_id.setdefault(rule.lower(), [])
                    if not rows or rows[-1] != row:
                        rows.append(row)
            self._by_id = by_id
        return self._by_id.get(normalise_section(section).lower(), [])

    def names(self) -> list[str]:
        self.rows_named("")
        assert self._by_id is not None
        return list(self._by_id)

    def hit_fields(self, row: int, header: dict[str, Any] | None = None) -> dict:
        """`section_id`, `rule_ids` and `references` of a hit, each only when it has any.
        `header`: the row's display record, when the caller has read it (Bundle.shown)."""
        if not self.available:
            return {}
        if self._display is not None:  # one record holds the three
            if header is None:
                header = self._display.row(row).header
            sid, rules = header.get("section_id"), header.get("rule_ids", ())
            refs = header.get("references", ())[:MAX_REFERENCES_SHOWN]
        else:
            sid, rules = self._field(row, "section_id"), self._rule_ids(row)
            refs = self.references(row)[:MAX_REFERENCES_SHOWN].tolist()
        out: dict = {}
        if sid:
            out["section_id"] = sid
        if rules:
            out["rule_ids"] = list(rules)
        if refs:
            out["references"] = [self.reference(r) for r in refs]
        return out

    def reference(self, row: int) -> dict:
        if self._display is not None:  # one record, not a lookup per field
            header = self._display.row(row).header
            heading, crumb, summary = header["heading"], header["breadcrumb"], header.get("summary")
            out = {"id": self.bundle.id_prefix + header["id"]}
        else:
            bundle = self.bundle
            heading = bundle.cell(row, "heading")
            crumb = "" if heading else bundle.cell(row, "breadcrumb")
            summary = self._field(row, "summary")
            out = {"id": bundle.id(row)}
        # A page's preamble has no heading of its own: its breadcrumb ends with the page title.
        out["title"] = heading or crumb.split(" > ")[-1]
        if summary:
            out["summary"] = summary
        return out


@record
class _Sections:
    """sections.parquet's columns as the index uses them (offsets from 0 into the values)."""

    section_ids: list[str | None]
    summaries: list[str | None]
    rule_offsets: np.ndarray
    rules: list[str]
    ref_offsets: np.ndarray
    refs: np.ndarray
