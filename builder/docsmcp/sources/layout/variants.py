"""Variant folders: one docs tree written once per framework or platform, as users lay them out
(TanStack Query: `framework/react/guides/retries.md`, `framework/vue/guides/retries.md`, …),
and the value searched by default. The one home of this rule, used by `docsmcp init` (which
proposes it in the manifest) and by `docsmcp build` (which applies it when no manifest says
anything about the key).

Sibling folders that mirror each other, either every child of a folder named `framework`,
`platform`, `database` or `dialect` (or the plural) at depth 1 or 2, or the ones named for a
framework, a platform or a database (FRAMEWORKS, PLATFORMS, DATABASES: Ionic's `docs/angular/`,
`docs/react/`, `docs/vue/`; Drizzle's `pg/`, `mysql/`, `sqlite/`) in any folder up to that
depth: a child is a variant when at least MIN_SHARED of its pages (their paths within
the child), and at least a third of them, are pages of another child too, and at least two
children are. Other parent names were tried and left out: tRPC's `client/react`,
`client/vanilla` and `client/tanstack-react-query` share pages but are three clients, not one
client per framework, and `integrations/stripe` and `integrations/slack` share `setup.md` as any
two integrations would. The key is the
axis' singular (`frameworks/` -> `framework`), its values the variants' folder names, and its
`default` the variant with the most text (ties: the first by name): the one written in full,
which the others adapt (TanStack: react, 423 kB; its vue and solid pages are the react page
through a `ref:` with replacements, 65 and 107 kB; preact has the most pages, 108 of them
generated type listings). The page count would have said preact. Search answers from the
default unless a query names another variant or a filter picks one; the same page of other
variants folds into `also_in` (the runtime's search/versions.py).

A key a manifest names is left to it; folders that are version folders are no variants.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from docsmcp.sources.layout.versions import folder_value

# The axis names a variant parent folder has (singular; a trailing `s` is dropped first).
AXES = frozenset({"framework", "platform", "database", "dialect"})
# Folder names that say a variant on their own, wherever they are (Ionic's `docs/react/`,
# `docs/vue/`, `docs/angular/`): frameworks and platforms docs are written once for each. A name
# alone decides nothing: the mirror rule below still applies.
FRAMEWORKS = frozenset(
    {"react", "vue", "angular", "svelte", "sveltekit", "solid", "solidjs", "preact", "lit"}
    | {"qwik", "ember", "nextjs", "nuxt", "remix", "astro", "gatsby", "react-native"}
)
PLATFORMS = frozenset({"ios", "android", "macos", "windows", "linux", "web", "flutter"})
# Databases an ORM or driver documents once each (Drizzle: `pg/insert.mdx`, `mysql/insert.mdx`,
# `sqlite/insert.mdx`, … six copies of a page filled a search's top 3).
DATABASES = frozenset(
    {"pg", "postgres", "postgresql", "mysql", "mariadb", "sqlite", "libsql", "mssql", "sqlserver"}
    | {"cockroach", "cockroachdb", "singlestore", "mongodb", "oracle", "duckdb", "clickhouse"}
)
# Pages a variant shares with another variant, at least (and SHARED_PART of its pages, unless
# both its name and its parent's say the axis: TanStack Table's `framework/react/` shares 27 of
# its 92 pages, its generated reference one folder deeper than the other frameworks').
MIN_SHARED = 3
SHARED_PART = 1 / 3
# Sibling folders of any names are variants when they mirror each other nearly page for page
# (shadcn/ui: `components/radix/`, `components/base/`, `components/aria/`, 63 to 65 pages
# each, the same names; each copy of a component took a place of the first three): at least
# MIN_MIRRORED pages of each shared with another, and MIRRORED_PART of its pages. tRPC's three
# clients share 3 of 10 pages, two integrations a `setup.md`: far below.
MIN_MIRRORED = 10
MIRRORED_PART = 0.8
MIRROR_KEY = "variant"  # the key of such folders, whose names say no axis
MIRRORS_PART = 0.5  # of their parent's child folders, at least
MAX_DEPTH = 2  # of a variant folder's parent (0: the docs folder)


@dataclass(frozen=True)
class Variants:
    """Variant folders (folder path -> value) of one key, and its default value."""

    key: str | None = None
    folders: Mapping[str, str] = field(default_factory=dict)
    default: str | None = None
    why: str = ""  # how the default was chosen, for init's report

    def value_of(self, path: str) -> str | None:
        """The variant of the file at `path`: the value of the variant folder holding it."""
        return folder_value(self.folders, path)

    def description(self) -> str:
        return (
            f"{self.key.capitalize() if self.key else ''} the page documents (from folder names)."
        )


def axis_of(name: str) -> str | None:
    """The key a parent folder's name gives (`frameworks` -> `framework`), or None."""
    low = name.lower()
    singular = low[:-1] if low.endswith("s") and len(low) > 3 else low
    return singular if singular in AXES else None


def named_axis(name: str) -> str | None:
    """The key a folder's own name gives when it names a framework, a platform or a
    database."""
    low = name.lower()
    for key, names in (("framework", FRAMEWORKS), ("platform", PLATFORMS), ("database", DATABASES)):
        if low in names:
            return key
    return None


def detect(
    paths: Iterable[str],
    size: Callable[[str], int],
    taken: Iterable[str] = (),
    mirrors: bool = True,
) -> Variants:
    """The variant folders among `paths` (files relative to the docs folder, `size(path)` their
    length); `taken`: keys a manifest names, and folders already given another key. `mirrors`:
    whether folders of no axis' name may be variants (not under a manifest, whose keys say
    what such folders are: speakeasy-sdks' SDK folders are its `product`s)."""
    taken = set(taken)
    # (parent, key) -> child -> its pages: every child of a `framework/` folder, children
    # named for a framework or platform in any folder up to MAX_DEPTH (the docs folder too),
    # and the other children of those folders (MIRROR_KEY: variants if they mirror each other).
    children: dict[tuple[str, str], dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    mirror = MIRROR_KEY if mirrors else None
    for path in sorted(paths):
        parts = path.split("/")
        for depth in range(0, MAX_DEPTH + 1):
            if len(parts) < depth + 2:  # [parent /] child / ... / file
                break
            axis = axis_of(parts[depth - 1]) if depth else None
            axis = axis or named_axis(parts[depth]) or mirror
            if axis is not None:
                parent = "/".join(parts[:depth])
                children[(parent, axis)][parts[depth]].add("/".join(parts[depth + 1 :]))
    folders: dict[str, str] = {}
    key = None
    text: Counter[str] = Counter()
    # (folders named for an axis first: mirrors of no such name are variants only without them)
    for (parent, axis), kids in sorted(
        children.items(), key=lambda kv: (kv[0][1] == MIRROR_KEY, kv[0])
    ):
        if (
            axis in taken
            or (key is not None and axis != key)
            # (a taken folder's key says what its children are: a product's packages)
            or (axis == MIRROR_KEY and _inside(parent, taken))
        ):
            continue
        found = {}
        # (how many children hold each page: a page of another child too is held twice; the
        # union of the others for each child was quadratic in a folder's children, 0.5 s on
        # win32's docs folder)
        holders = Counter(page for pages in kids.values() for page in pages)
        for name, own in sorted(kids.items()):
            folder = f"{parent}/{name}" if parent else name
            if folder in taken:
                continue
            shared = sum(1 for page in own if holders[page] > 1)
            least, part = (
                (MIN_MIRRORED, MIRRORED_PART) if axis == MIRROR_KEY else (MIN_SHARED, SHARED_PART)
            )
            if parent and axis_of(parent.rsplit("/", 1)[-1]) == axis and named_axis(name) == axis:
                part = 0.0  # (a framework's folder under `framework/`: its name says it, below)
            if shared >= least and shared >= part * len(own):
                found[folder] = name
        # Mirrors are a folder's way of splitting its pages: most of its children (MDN's
        # `web/api/` holds a thousand interfaces, FormData's, Headers' and URLSearchParams'
        # methods the same names, `append/`, `get/`, `has/` ...: no copies of one another).
        if len(found) >= 2 and (axis != MIRROR_KEY or len(found) >= MIRRORS_PART * len(kids)):
            key = axis
            folders.update(found)
            for folder, name in found.items():
                text[name] += sum(size(f"{folder}/{page}") for page in kids[name])
    if key is None:
        return Variants()
    most = max(text.values())
    default = min(v for v, n in text.items() if n == most)
    return Variants(key, dict(sorted(folders.items())), default, f"the most text, {most:,} bytes")


def _inside(folder: str, folders: set[str]) -> bool:
    """Whether `folder` is one of `folders` or inside one."""
    return any(folder == f or folder.startswith(f + "/") for f in folders)
