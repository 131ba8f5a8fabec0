"""The API registry (`api.parquet`, bundle-spec.md, *Browse tables*): what
`get_api_reference` looks up. Entries were extracted by the builder from the docs themselves."""

from __future__ import annotations

import re

import numpy as np

from ..bundle.reader import Bundle
from ..errors import BundleError
from ..format import API_FILE, MetadataError
from ..format.problems import api_json

_IDENT = re.compile(r"[^0-9a-z_.:$@-]+")
# Where a qualified name may be cut: `pathlib.Path.read_text`, `std::vector::push_back`,
# `toctree:maxdepth`.
_QUALIFIER = re.compile(r"::|[.:]")
_SIGILS = ".:$@-"
# What separates the parts of an API name as written (`tqdm.auto.trange`, `Router::nest`,
# `Element#select`): its last part is what a reader typed.
_TAIL = re.compile(r"::|[.#\\]")  # (`\`: PHP's `Monolog\Logger`)
_CALL = re.compile(r"\(.*\)$")  # a call's parentheses after a name: `Links.create()`
# Kinds of entry named with their program (`python -m`, `tmux new-session`), found by their own
# last word too.
_PROGRAM_KINDS = frozenset({"option", "command"})
# A generic's type parameters after a name (`Policy.Handle<TException>`, C#'s and Java's;
# nested once: `Dictionary<K, List<V>>`): a name is looked up without them.
_GENERIC = re.compile(r"(?<=[\w$])<[^<>()]*(?:<[^<>()]*>[^<>()]*)*>")
# An Elixir name/arity (`Ecto.Repo.insert/2`, `c:init/2`, `t:t/0`, as ExDoc auto-links write
# them): found by its name too, every arity of it.
_ARITY = re.compile(r"^([^\s/]+)/[0-9]{1,3}$")
# ExDoc's kind prefix of an auto-link: `c:GenServer.init/1`, `t:Ecto.Changeset.t/0`,
# `m:Ecto.Query` name the entry without it.
_KIND = re.compile(r"^[mtc]:(?=[A-Z][\w.]*(?:[^\s/]*/[0-9]{1,3})?$)")


def method_key(text: str) -> str:
    """How a method is looked up: lower case, no backticks, call parentheses or spaces
    (`Links.create()` → `links.create`, `Ecto.Repo.insert/2` → `ecto.repo.insert`,
    `GuzzleHttp\\Client::request` → `guzzlehttp.client::request`, Perl's
    `Mojo::UserAgent->get` → `mojo::useragent::get`); a leading `.`, `$`, `@`, `--` or `::`
    stays (`.Call`, `$.getJSON`, `--verbose`)."""
    text = _KIND.sub("", text.strip().strip("`")).lower()
    if "->" in text:  # (Perl's method call: the sub `Class::method`)
        text = text.replace("->", "::")
    if "\\" in text:  # a PHP namespace (`\GuzzleHttp\Client::request`): its parts as dots
        text = text.lstrip("\\").replace("\\", ".")
    text = _CALL.sub("", text)
    text = _GENERIC.sub("", text)
    text = _ARITY.sub(r"\1", text)
    return _IDENT.sub("", text)


def name_keys(key: str) -> set[str]:
    """The keys an entry named `key` (a method key) is found by: itself, each tail of its
    qualified name (`path.read_text`, `read_text`) and itself without a leading sigil."""
    keys = {key, key.lstrip(_SIGILS)}
    for m in _QUALIFIER.finditer(key):
        if m.start() > 0 or m.end() < len(key):
            keys.add(key[m.end() :])
    keys.discard("")
    return keys


def _last_part(name: str) -> str:
    """The last part of an API name as written, without a call's parentheses (`Element#select()`
    -> `select`), its case kept."""
    return _CALL.sub("", _TAIL.split(name.strip())[-1])


def category_key(category: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", category.lower())


class ApiRegistry:
    def __init__(self, bundle: Bundle) -> None:
        table = bundle.table(API_FILE)
        self.bundle = bundle
        self.available = table is not None
        if table is None:
            self.names: list[str] = []
            self.categories: list[str] = []
            self.rows = np.zeros(0, dtype=np.int64)
            self._table = None
            self._starts: np.ndarray | None = None  # line_start, read on the first need
            self._keys: dict[str, list[int]] = {}
            self._own: list[str] = []
            return
        self._table = table
        self._starts = None
        self.names = table.column("name").to_pylist()
        self.categories = table.column("category").to_pylist()
        self.kinds: list[str] = table.column("kind").to_pylist()
        self.rows = table.column("row").to_numpy().astype(np.int64)
        keys: dict[str, list[int]] = {}
        own = [method_key(name) for name in self.names]
        for i, (key, category) in enumerate(zip(own, self.categories, strict=True)):
            # `create` under "Links" is also `links.create`; `sdk.links.create` ends with it;
            # `pathlib.Path.read_text` is also `Path.read_text` and `read_text`.
            found = name_keys(key) | {f"{category_key(category)}.{key}"}
            if self.kinds[i] in _PROGRAM_KINDS and " " in self.names[i].strip():
                # a program's option (`python -m`, as Sphinx names it) is also its own `-m`,
                # a manual page's command (`tmux new-session`) its own `new-session`
                found.add(method_key(self.names[i].strip().rpartition(" ")[2]))
            for k in sorted(found):
                keys.setdefault(k, []).append(i)
        # An entry named exactly as asked comes before those it is only the tail of.
        for k, found in keys.items():
            if len(found) > 1:
                found.sort(key=lambda i, k=k: own[i] != k)
        self._keys = keys
        self._own = own

    def __len__(self) -> int:
        return len(self.names)

    def lookup(self, method: str) -> list[int]:
        """Entries named `method`: exactly, qualified by their category, or by its last part
        (`dub.links.create` → `links.create`); of an Elixir name/arity, that arity first."""
        key = method_key(method)
        found = self._distinct(self._lookup(key))
        if len(found) > 1:
            found = self._ranked(found, key, method)
        arity = _ARITY.match(_KIND.sub("", method.strip().strip("`")))
        if len(found) > 1 and arity:  # `aggregate/4` before `aggregate/3`
            asked = method.strip().strip("`").rpartition("/")[2]
            return sorted(found, key=lambda i: self.names[i].rpartition("/")[2] != asked)
        return found

    def _ranked(self, found: list[int], key: str, method: str) -> list[int]:
        """Entries of one key in the order a reader wants them: named exactly as asked first,
        then those whose last part has the asked case (`Elements` the class before
        `FormElement.elements`), then the shallower path (`tqdm.trange` before
        `tqdm.auto.trange`); found order (path order) breaks the rest."""
        tail = _last_part(method.strip().strip("`"))

        def order(i: int) -> tuple[bool, bool, int]:
            own = self._own[i]
            return own != key, _last_part(self.names[i]) != tail, len(_TAIL.findall(own))

        return sorted(found, key=order)

    def _distinct(self, found: list[int]) -> list[int]:
        """One entry per section and declaration: a Rust item re-exported is registered under
        each path users type (`clap::Command`, `clap_builder::builder::Command`), all of one
        section; the first found (the one named as asked) stands for them. Overloads a line
        holds (Java's inherited `Document.select(String)` and `select(Evaluator)`, both on
        the *Inherited from* line) are different declarations: each is answered."""
        if len(found) < 2 or self._table is None:
            return found
        if self._starts is None:
            self._starts = self._table.column("line_start").to_numpy()
        places = [(int(self.rows[i]), int(self._starts[i])) for i in found]
        if len(set(places)) == len(places):
            return found
        names, signatures = self._table.column("name"), self._table.column("signature")
        # place -> the names answered there and their signatures: another name at a place
        # answered is the same declaration (a re-export, a child's alias of its base's member:
        # zod's `ZodString.safeParse` on `ZodType.safeParse`'s section); the same name with
        # another signature is an overload.
        kept: dict[tuple[int, int], dict[str, set[str]]] = {}
        out = []
        for i, place in zip(found, places, strict=True):
            name, signature = str(names[i]), str(signatures[i])
            at = kept.get(place)
            if at is None:
                kept[place] = {name: {signature}}
                out.append(i)
            elif name in at and signature not in at[name]:
                at[name].add(signature)
                out.append(i)
        return out

    def _lookup(self, key: str) -> list[int]:
        found = self._keys.get(key)
        if found:
            return found
        for sep in (".", "::"):  # (`axum::Router::nest`, re-exported: `Router::nest`)
            parts = key.split(sep)
            for start in range(1, len(parts) - 1):
                found = self._keys.get(sep.join(parts[start:]))
                if found:
                    return found
        for sep in ("::", "."):
            if sep not in key:
                continue
            # A path a crate or package re-exports (`tokio::spawn` is `tokio::task::spawn`,
            # Python's `tqdm.tqdm` is `tqdm.std.tqdm`, `fire.Fire` `fire.core.Fire`): that
            # crate's or package's own entries of the name, the shortest path first.
            parts = key.split(sep)
            crate = parts[0] + sep
            for start in range(1, len(parts)):
                found = [
                    i
                    for i in self._keys.get(sep.join(parts[start:]), ())
                    if self._own[i].startswith(crate)
                ]
                if found:
                    return sorted(found, key=lambda i: self._own[i].count(sep))
        return []

    def known_names(self) -> list[str]:
        return sorted(
            {n for n in self.names}
            | {
                f"{category_key(c)}.{n}"
                for n, c in zip(self.names, self.categories, strict=True)
                if c
            }
        )

    def spec(self, i: int) -> dict:
        """One entry in full."""
        assert self._table is not None
        t = self._table
        row = int(self.rows[i])
        bundle = self.bundle
        path = bundle.paths[row].as_py()
        out = {
            "name": self.names[i],
            "category": self.categories[i],
            "kind": self.kinds[i],
            "signature": t.column("signature")[i].as_py(),
            "description": t.column("description")[i].as_py(),
            "parameters": self._json("parameters", i),
            "returns": t.column("returns")[i].as_py(),
            "examples": self._json("examples", i),
            "chunk_id": bundle.id(row),
            "filepath": path,
            "metadata": bundle.chunk_meta(row),
            "source": {
                "file": path,
                "lines": [t.column("line_start")[i].as_py(), t.column("line_end")[i].as_py()],
            },
        }
        return {k: v for k, v in out.items() if v not in ("", [], {})}

    def _json(self, column: str, i: int) -> list:
        assert self._table is not None
        try:
            return api_json(self._table.column(column)[i].as_py())
        except MetadataError as exc:
            path = self.bundle.path / API_FILE
            raise BundleError(f"{path}: column {column} of entry {i}: {exc}") from None

    def summary(self, i: int) -> dict:
        """One entry in a listing: name, kind, signature, the first sentence, where it is."""
        assert self._table is not None
        row = int(self.rows[i])
        description = self._table.column("description")[i].as_py()
        first = re.split(r"(?<=[.!?])\s", description, maxsplit=1)[0]
        out = {
            "name": self.names[i],
            "kind": self.kinds[i],
            "signature": self._table.column("signature")[i].as_py(),
            "summary": first[:200],
            "chunk_id": self.bundle.id(row),
        }
        return {k: v for k, v in out.items() if v}
