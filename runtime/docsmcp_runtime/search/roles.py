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
| `proposal`  | SEPs, RFCs, PEPs, ADRs: designs, not the current behaviour         |
| `generated` | pages generated from types: SDK model pages, type listings         |
| `index`     | landing pages that mostly link elsewhere                           |

The prior: a plain query ranks the page that documents today's behaviour above the pages that
describe how it changed, was proposed or announced, so each row's score is multiplied by its
role's weight (PRIOR). The prior yields to the query (`weights`): a query about changes ("what
changed", "new in", "release notes", deprecation, migration, breaking changes) or one naming a
version lifts changelogs; naming a blog/announcement or a SEP/RFC/PEP/proposal lifts those; a
query naming code (an identifier) asks for the type pages too. A `role` filter selects pages of
that role and no prior applies (the engine does not call this module then).

The vocabulary lives here, in the runtime, and the builder imports it: one home for it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from .intent import IDENTIFIER, query_class

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
# opens for today's behaviour). Measured with `docsmcp eval` on the four dev sets (dev, nl, pdf,
# mcp; bundles built by /work/base/build_all.sh), see DECISIONS.md *Page roles*: changelog 0.5
# and proposal 0.7 took mcp-docs' MRR@5 from 0.453 to the value reported there; lower
# weights than these cost the mcp cases whose answer is a SEP or the changelog itself, and
# the generated weight was the highest of those tried that kept every speakeasy-sdks case.
PRIOR: Mapping[str, float] = {
    REFERENCE: 1.0,
    GUIDE: 1.0,
    CONCEPT: 1.0,
    CHANGELOG: 0.5,
    BLOG: 0.6,
    PROPOSAL: 0.7,
    GENERATED: 0.9,
    INDEX: 0.9,
}
# The weight of a role the query asks for (a changelog for "what changed in 2025-06-18").
LIFTED = 1.3
# A query that names a version (and nothing about changes): a changelog is as likely as any
# page, neither demoted nor lifted.
NEUTRAL = 1.0

# Words that ask about changes between releases.
_CHANGES = re.compile(
    r"\b(?:changes|changed|changelogs?|change\s+log|release\s+notes?|releases?|"
    r"what'?s\s+new|new\s+in|deprecat\w*|migrat\w*|upgrad\w*|breaking|history)\b",
    re.IGNORECASE,
)
# A version: 1.2, v2, 3.11.4, a dated revision 2025-06-18.
_VERSION = re.compile(r"\b(?:v\d+(?:\.\d+)*|\d+\.\d+(?:\.\d+)*|\d{4}-\d{2}-\d{2})\b", re.IGNORECASE)
_BLOG = re.compile(r"\b(?:blogs?|announc\w*|posts?)\b", re.IGNORECASE)
_PROPOSAL = re.compile(
    r"\b(?:seps?|rfcs?|peps?|adrs?|proposals?|proposed|enhancement\s+proposals?)(?:\b|-?\d)",
    re.IGNORECASE,
)


def weights(query: str) -> dict[str, float]:
    """The weight of each role for `query`: the default prior, with the roles the query asks
    for lifted."""
    out = dict(PRIOR)
    if _CHANGES.search(query):
        out[CHANGELOG] = LIFTED
    elif _VERSION.search(query):
        out[CHANGELOG] = NEUTRAL
    if _BLOG.search(query):
        out[BLOG] = LIFTED
    if _PROPOSAL.search(query):
        out[PROPOSAL] = LIFTED
    if query_class(query) == IDENTIFIER:
        out[GENERATED] = NEUTRAL
    return out


class RolePrior:
    """The per-row weight of the `role` column of one bundle (facet codes → weights)."""

    def __init__(self, values: Sequence[str], column: np.ndarray) -> None:
        self.values = tuple(values)
        self.column = column  # facet codes of `role`, one per row (0: no role)

    def factor(self, query: str, rows: np.ndarray | None = None) -> np.ndarray | None:
        """Each row's weight (of the bundle, or of `rows`), or None when every weight is 1."""
        by_role = weights(query)
        table = np.ones(len(self.values) + 1, dtype=np.float32)
        for code, value in enumerate(self.values, start=1):
            # An unknown value (a newer builder's role) keeps its row's score as it is.
            table[code] = np.float32(by_role.get(value, 1.0))
        if np.all(table == 1):
            return None
        column = self.column if rows is None else self.column[rows]
        return table[column]
