"""How far a navigation file is read (navfiles.py and the readers it calls: meta_navs.py)."""

from __future__ import annotations

# A nav file is read this deep and this far at most: real ones nest a few levels and name at
# most thousands of pages; a hostile one (10,000 levels, YAML aliases repeating a list a
# billion times over) is cut there, what was read so far kept.
MAX_NAV_DEPTH = 32
MAX_NAV_NODES = 100_000


class Budget:
    """Nodes of one nav file still to be visited."""

    def __init__(self) -> None:
        self.left = MAX_NAV_NODES

    def take(self) -> bool:
        self.left -= 1
        return self.left >= 0
