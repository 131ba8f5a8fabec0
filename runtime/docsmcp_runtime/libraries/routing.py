"""Which library a call addresses: the `library` argument, the `LIBRARY:` prefix of an id or
path, or the only library; `version` among a library's bundles.
"""

from __future__ import annotations

import json

from ..bundle.versions import VERSION_KEY
from ..bundle.versions import resolve as resolve_version
from ..tools.app import DocsApp
from ..tools.arguments import ToolInputError, str_arg
from ..tools.results import close_matches, json_result
from .library import _PREFIX_SEP, LIBRARY_ARG, Library, _key_of


class LibraryRouter:
    """How LibraryApp picks the library (and version) of a call (a base class: it reads the
    app's libraries)."""

    apps: list[DocsApp]
    keys: dict[str, DocsApp]  # by library key (NAME or NAME@VERSION)
    libraries: dict[str, Library]
    _prefixes: list[str]  # the keys, longest first

    def split_id(self, text: str) -> tuple[DocsApp | None, str]:
        """(the app whose prefix `text` starts with, the rest) — (None, text) without one."""
        for key in self._prefixes:
            if text.startswith(key + _PREFIX_SEP):
                return self.keys[key], text[len(key) + 1 :]
        return None, text

    def _library_arg(self, args: dict) -> Library | None:
        name = str_arg(args, LIBRARY_ARG)
        args.pop(LIBRARY_ARG, None)
        if name is None:
            return None
        lib = self.libraries.get(name)
        if lib is None:
            folded = {n.casefold(): n for n in self.libraries}
            if name.casefold() in folded:
                return self.libraries[folded[name.casefold()]]
            close = close_matches(name, self.libraries)
            raise ToolInputError(
                f"Unknown library '{name}'. Libraries: {', '.join(self.libraries)}."
                + (f" Did you mean {', '.join(close)}?" if close else "")
            )
        return lib

    def _pick(self, lib: Library, args: dict, notes: list[str]) -> DocsApp | None:
        """The bundle of `lib` a call means: `version` among its bundles (consumed from args),
        or, for a library of one bundle, its taxonomy filter or its own version. None when
        the version matches nothing here."""
        version = args.get(VERSION_KEY)
        if version is not None and not isinstance(version, str):
            raise ToolInputError("version must be a string")
        if len(lib.apps) == 1:
            app = lib.apps[0]
            if version is None or VERSION_KEY in app.taxonomy:
                return app
            args.pop(VERSION_KEY)
            own = app.bundle.metadata.version
            if own and resolve_version(version, (own,)) == own:
                return app
            return None
        args.pop(VERSION_KEY, None)
        picked = lib.pick(version)
        if picked is None:
            return None
        app, note = picked
        if note:
            notes.append(note)
        return app

    def _one(self, lib: Library, args: dict, notes: list[str]) -> DocsApp:
        app = self._pick(lib, args, notes)
        if app is None:
            available = ", ".join(lib.named) or "none"
            raise ToolInputError(
                f"No version of {lib.name} matches {json.dumps(args.get(VERSION_KEY))}. "
                f"Available versions: {available} (or latest, or a range such as 1.x, >=1.2)."
            )
        return app

    def _each(self, args: dict, notes: list[str]) -> list[tuple[DocsApp, dict]]:
        """(app, its arguments) of every library a fanned-out call reaches (one bundle each)."""
        out = []
        for lib in self.libraries.values():
            own = dict(args)
            app = self._pick(lib, own, notes)
            if app is not None:
                out.append((app, own))
        if not out:
            raise ToolInputError(
                f"No library has version {json.dumps(args.get(VERSION_KEY))}. "
                + "; ".join(
                    f"{lib.name}: {', '.join(lib.named) or 'unversioned'}"
                    for lib in self.libraries.values()
                )
            )
        return out

    def _each_latest(self) -> list[DocsApp]:
        """One app per library: its latest version."""
        return [lib.latest for lib in self.libraries.values()]

    def _routed(self, tool: str, args: dict, notes: list[str], named: str | None) -> DocsApp:
        """The app a call addresses: `library`, else the prefix of the id/path argument `named`
        (which is rewritten without it), else the only library; otherwise a tool error."""
        lib = self._library_arg(args)
        if lib is not None:
            app = self._one(lib, args, notes)
            if named and isinstance(args.get(named), str):
                owner, rest = self.split_id(args[named])
                if owner is not None and owner is not app:
                    raise ToolInputError(
                        f"{named} '{args[named]}' belongs to {_key_of(owner)}, not {lib.name}."
                    )
                args[named] = rest
            return app
        if named and isinstance(args.get(named), str):
            owner, rest = self.split_id(args[named])
            if owner is not None:
                args[named] = rest
                return owner
        if len(self.libraries) == 1:
            return self._one(next(iter(self.libraries.values())), args, notes)
        raise ToolInputError(
            f"{tool} needs `{LIBRARY_ARG}` here: one of {', '.join(self.libraries)}"
            + (f" (or a {named} that starts with LIBRARY:)" if named else "")
            + "."
        )

    @staticmethod
    def _tagged(app: DocsApp, result: dict, notes: list[str]) -> dict:
        """A delegated result, with the library named and this call's notes added."""
        content = result.get("structuredContent")
        if content is None or result.get("isError"):
            if notes and not result.get("isError"):
                result["content"].append({"type": "text", "text": "Note: " + " ".join(notes)})
            return result
        content = {LIBRARY_ARG: app.bundle.metadata.name, **content}
        if notes:
            content["notes"] = [*notes, *content.get("notes", [])]
        return json_result(content)
