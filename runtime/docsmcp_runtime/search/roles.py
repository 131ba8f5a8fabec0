"""Page roles (bundle-spec.md, *Page roles*): the vocabulary of the built-in taxonomy key `role`
and the prior the engine applies to it.

Every page of a bundle has one role, given by the builder (or a manifest / frontmatter):

| role        | pages                                                              |
|-------------|--------------------------------------------------------------------|
| `reference` | what a thing is and does: API, specification, options (the default)|
| `guide`     | tutorials, how-tos, quickstarts, recipes                           |
| `concept`   | explanations, architecture, overviews of ideas                     |
| `changelog` | release notes, what's new, migration and upgrade guides            |
| `blog`      | blog posts, announcements                                          |
| `proposal`  | SEPs, RFCs, PEPs, ADRs, roadmaps: plans, not the current behaviour |
| `generated` | pages generated from types: SDK model pages, type listings         |
| `index`     | landing pages that mostly link elsewhere                           |

The prior: a plain query ranks the page that documents today's behaviour above the pages that
describe how it changed, was proposed or announced, or list a generated type's fields, so each
row's score is multiplied by its role's weight (PRIOR). The prior yields to the query
(`weights`):
- a query asking what changed ("what changed", "changes in/since …", "v2 changes",
  "changelog", "release notes", "what's new", "new in 3.12", "breaking") lifts changelogs
  (LIFTED) and leaves blog posts undemoted;
- a query on deprecation, migration, upgrades or releases, or naming a version (1.2, v2,
  2025-06-18), leaves changelogs (and, for a version, blog posts) undemoted;
- naming a blog or an announcement lifts blog posts; naming a SEP/RFC/PEP/ADR, a proposal, a
  roadmap or what is planned lifts proposals;
- a query naming code (an identifier, intent.query_class) leaves generated pages undemoted.
A `role` filter selects pages of that role and no prior applies (the engine does not call this
module then). Rows with a role outside the vocabulary keep their score.

The vocabulary lives here, in the runtime, and the builder imports it: one home for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .intent import IDENTIFIER, holds_any, query_class

if TYPE_CHECKING:
    from ..bundle.reader import Bundle

ROLE_KEY = "role"
REFERENCE, GUIDE, CONCEPT = "reference", "guide", "concept"
CHANGELOG, BLOG, PROPOSAL, GENERATED, INDEX = (
    "changelog",
    "blog",
    "proposal",
    "generated",
    "index",
)
ROLES = (REFERENCE, GUIDE, CONCEPT, CHANGELOG, BLOG, PROPOSAL, GENERATED, INDEX)

# The default weight of each role (a multiplier on the row's score; 1.0 for the roles a reader
# opens for today's behaviour). Measured with `docsmcp eval` (MRR@5) on the four dev sets, one
# weight at a time, on bundles built as /work/base/build_all.sh builds them (DECISIONS.md,
# *Page roles*, has the tables):
# - generated: 1.0 / 0.8 / 0.7 / 0.5 / 0.3 gave dev 0.645 / 0.674 / 0.684 / 0.707 / 0.712 and
#   nl 0.477 / 0.491 (0.8 and lower); 0.5, the top of the plateau, loses one nl case whose
#   answer is a model page (an identifier query keeps them at 1.0, `weights`).
# - proposal: on mcp-docs with only its latest release (what the `version` default serves),
#   1.0 / 0.9 / 0.8 / 0.7 gave 0.612 / 0.604 / 0.634 / 0.640; on the bundle with every version
#   0.7 costs one case (0.467 -> 0.450), where a draft copy outranks the SEP that was first.
# - changelog: 0.3 .. 0.8 gave the same scores on every set (1.0 cost dev 0.003): 0.5 keeps a
#   changelog that repeats a page's words (FastAPI's release notes for "dependency with yield
#   cleanup") below that page.
# - blog, index: no dev case has such a page for an answer or a rival. Blog 0.6 moves Vite's
#   announcements below its guides ("server-side rendering setup"); landing pages are seldom
#   ranked (they are mostly links), so index stays 1.0.
PRIOR: Mapping[str, float] = {
    REFERENCE: 1.0,
    GUIDE: 1.0,
    CONCEPT: 1.0,
    CHANGELOG: 0.5,
    BLOG: 0.6,
    PROPOSAL: 0.7,
    GENERATED: 0.5,
    INDEX: 1.0,
}
# The weight of a role the query asks for (a changelog for "what changed in 2025-06-18"): the
# dev sets score the same for 1.0 .. 1.3 (1.6 cost mcp-dev-016 while deprecation words still
# lifted changelogs: the changelog's *Deprecated* section above the deprecation pages). Since
# deprecation words no longer lift, 2.0 scores the same on all four sets again, and once the
# version a query names is the one searched (search/versions.py) the version's own number no
# longer tells its changelog apart: 1.3 left "what changed in 2025-06-18" with the architecture
# page's `listChanged` first, 2.0 puts that version's changelog first.
LIFTED = 2.0
# A query on a topic changelogs cover among others (deprecation, migration, a version): those
# pages compete on their text, neither demoted nor lifted.
NEUTRAL = 1.0

# Words that ask what changed between releases: a changelog is the answer, lifted. As a
# question ("what changed", "changes in/since …", "jest 30 changes", "new in 3.12"), not any
# "changed": "tools list changed notification" asks for the listChanged notification, and the
# changelog that mentions it ranked first.
_CHANGES = re.compile(
    r"\b(?:what(?:'?s|\s+has|\s+have|\s+was)?\s+changed|changes?\s+(?:in|since|between|from)"
    r"|changed\s+(?:in|since|between|from)|changelogs?|change\s+log|release\s+notes?"
    r"|what'?s\s+new|new\s+in\s+(?:v(?:ersion)?\s*)?\d|breaking|v?\d[\w.-]*\s+changes)\b",
    re.IGNORECASE,
)
# Words about a topic changelogs cover among others (a deprecated feature, a migration, a
# release): a changelog competes on its text, neither demoted nor lifted; the reference page
# that lists deprecated features stays first for "deprecated features".
_CHANGE_TOPIC = re.compile(
    r"\b(?:deprecat\w*|migrat\w*|upgrad\w*|releases?|released|history)\b", re.IGNORECASE
)
# A version: 1.2, v2, 3.11.4, a dated revision 2025-06-18.
_VERSION = re.compile(r"\b(?:v\d+(?:\.\d+)*|\d+\.\d+(?:\.\d+)*|\d{4}-\d{2}-\d{2})\b", re.IGNORECASE)
# (not "post": HTTP's POST, "post-processing", and Jekyll's own posts, which its release
# announcements then outranked the docs for: "keep a post unpublished" found 1.0.0's notes)
_BLOG = re.compile(r"\b(?:blogs?|announc\w*)\b", re.IGNORECASE)
_PROPOSAL = re.compile(
    r"\b(?:seps?|rfcs?|peps?|adrs?|proposals?|proposed|planned|roadmaps?|enhancement\s+proposals?)"
    r"(?:\b|-?\d)",
    re.IGNORECASE,
)


# The words of such a question are its intent, not its topic: with changelogs lifted they are
# not searched (the entries of an old changelog that say "Changed …" outranked the release the
# query names: "what changed in jest 30" found CHANGELOG_PRE_v30.md's 14.1.0).
CHANGE_WORDS = frozenset({"change", "changed"})


# Words one of which every match of a pattern above holds (intent.holds_any: a query without
# any of them skips the pattern's pass).
_CHANGES_WORDS = ("chang", "release", "new", "breaking")
_CHANGE_TOPIC_WORDS = ("deprecat", "migrat", "upgrad", "release", "history")
_VERSION_WORDS = tuple("0123456789")
_BLOG_WORDS = ("blog", "announc")
_PROPOSAL_WORDS = ("sep", "rfc", "pep", "adr", "propos", "planned", "roadmap")


def asks_what_changed(query: str) -> bool:
    """Whether `query` asks what changed (changelogs are lifted for it)."""
    return holds_any(query, _CHANGES_WORDS) and _CHANGES.search(query) is not None


def without_change_words(terms: list[str], bigrams: list[str]) -> tuple[list[str], list[str]]:
    """The query's terms and bigrams less the change words (all of them if nothing is left)."""
    kept = [t for t in terms if t not in CHANGE_WORDS]
    return kept or terms, [b for b in bigrams if CHANGE_WORDS.isdisjoint(b.split(" "))]


def weights(query: str, present: Collection[str] = ROLES) -> dict[str, float]:
    """The weight of each role for `query`: the default prior, with the roles the query asks
    for lifted. Only the rules of roles in `present` (a bundle's values) are tried: a search
    pays for none of the others (query_class is the dearest, ~20 us)."""
    out = dict(PRIOR)
    if CHANGELOG in present or BLOG in present:
        if asks_what_changed(query):
            out[CHANGELOG] = LIFTED
            out[BLOG] = NEUTRAL  # a release's announcement says what is new in it too
        elif holds_any(query, _CHANGE_TOPIC_WORDS) and _CHANGE_TOPIC.search(query):
            out[CHANGELOG] = NEUTRAL
        if holds_any(query, _VERSION_WORDS) and _VERSION.search(query):
            out[CHANGELOG] = max(out[CHANGELOG], NEUTRAL)
            out[BLOG] = NEUTRAL
    if BLOG in present and holds_any(query, _BLOG_WORDS) and _BLOG.search(query):
        out[BLOG] = LIFTED
    if PROPOSAL in present and holds_any(query, _PROPOSAL_WORDS) and _PROPOSAL.search(query):
        out[PROPOSAL] = LIFTED
    if GENERATED in present and query_class(query) == IDENTIFIER:
        out[GENERATED] = NEUTRAL
    return out


class RolePrior:
    """The per-row weight of the `role` column of one bundle (facet codes → weights)."""

    def __init__(self, values: Sequence[str], column: Callable[[], np.ndarray]) -> None:
        self.values = tuple(values)
        # The facet codes of `role`, one per row (0: no role), read when a set of weights is
        # first made: the searcher's contiguous copy of the column (engine.Searcher._column),
        # which a `role` filter or boost reads too.
        self._column = column
        # Each row's weight, one float32 array per set of role weights (a few: the default
        # prior and the lifts a query may ask for), made on its first use; None when every
        # weight is 1. Building the code table cost a search ~15 us, and gathering the rows'
        # weights through it (two fancy indexes) ~11 us, where one gather is ~4 (speakeasy-sdks).
        # 4 bytes a row each: 44 KB on speakeasy-sdks, 4 MB on a million chunks.
        self._weights: dict[tuple[float, ...], np.ndarray | None] = {}

    @classmethod
    def of(cls, bundle: Bundle, column: Callable[[str], np.ndarray]) -> RolePrior | None:
        """The prior of a bundle, whose facet columns `column(key)` gives contiguous (gathering
        weights through the strided facets matrix cost every search a pass twice as slow);
        None when it has no `role` key (an earlier builder's)."""
        taxonomy, keys = bundle.metadata.taxonomy, bundle.taxonomy_keys
        if ROLE_KEY not in taxonomy or ROLE_KEY not in keys:
            return None
        return cls(taxonomy[ROLE_KEY].values, lambda: column(ROLE_KEY))

    def factor(self, query: str, rows: np.ndarray | None = None) -> np.ndarray | None:
        """Each row's weight (of the bundle, or of `rows`), or None when every weight is 1."""
        by_role = weights(query, self.values)
        # An unknown value (a newer builder's role) keeps its row's score as it is.
        key = tuple(by_role.get(value, 1.0) for value in self.values)
        if key not in self._weights:
            table = np.array((1.0, *key), dtype=np.float32)  # by facet code
            weight = None if np.all(table == 1) else table[self._column()]
            if weight is not None:
                weight.flags.writeable = False  # shared by every search of these weights
            self._weights[key] = weight
        weight = self._weights[key]
        if weight is None:
            return None
        return weight if rows is None else weight[rows]


def weigh(
    scores: np.ndarray,
    prior: RolePrior | None,
    query: str,
    filters: Mapping[str, str],
    rows: np.ndarray | None = None,
) -> None:
    """Multiply `scores` (one per row of the bundle, or of `rows`) in place by the weights of
    their page roles for `query`: the engine's one call, in the full-text and the fused path.
    Nothing without a prior or with a `role` filter (the filter selects; no weight applies)."""
    if prior is None or ROLE_KEY in filters:
        return
    factor = prior.factor(query, rows)
    if factor is not None:
        scores *= factor
