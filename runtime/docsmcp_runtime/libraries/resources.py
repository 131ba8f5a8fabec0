"""Resources, prompts and completions over several libraries: each library's own, with the
library named (`library` argument, per-library cursors).
"""

from __future__ import annotations

import json

from ..errors import INVALID_PARAMS, ProtocolError
from ..tools.app import DocsApp
from .library import LIBRARY_ARG, Library


def resource_pages(app: LibraryResources, cursor: str | None) -> dict:
    """resources/list over every library, in library order, one page of each at a time: a
    cursor is `LIBRARY\\0its own cursor`, base64'd so that it stays opaque."""
    import base64

    libs = list(app.libraries.values())
    start, inner = 0, None
    if cursor is not None:
        try:
            name, _, inner_text = base64.urlsafe_b64decode(cursor.encode()).decode().partition("\0")
        except (ValueError, UnicodeDecodeError):
            name, inner_text = "", ""
        names = [lib.name for lib in libs]
        if name not in names:
            raise ProtocolError(
                INVALID_PARAMS,
                "Invalid params: invalid cursor; list resources again without a cursor",
            )
        start, inner = names.index(name), inner_text or None
    page = libs[start].latest.list_resources(inner)
    following = page.pop("nextCursor", None)
    if following is None and start + 1 < len(libs):
        nxt = f"{libs[start + 1].name}\0"
    elif following is not None:
        nxt = f"{libs[start].name}\0{following}"
    else:
        nxt = None
    if nxt is not None:
        page["nextCursor"] = base64.urlsafe_b64encode(nxt.encode()).decode()
    return page


class LibraryResources:
    """LibraryApp's resources, prompts and completions (a mixin: it reads the app's libraries).

    features/ is imported on first use, as DocsApp does: start-up stays lean."""

    apps: list[DocsApp]
    libraries: dict[str, Library]

    def _owner_of_uri(self, uri: str) -> DocsApp | None:
        for app in self.apps:
            if app.docs_resources.parse(uri) is not None:
                return app
        return None

    def list_resources(self, cursor: str | None) -> dict:
        return resource_pages(self, cursor)

    def list_resource_templates(self) -> dict:
        # One template per library name (a library's versions share its name).
        out = []
        for lib in self.libraries.values():
            out.extend(lib.latest.list_resource_templates()["resourceTemplates"])
        return {"resourceTemplates": out}

    def read_resource(self, uri: str) -> dict:
        owner = self._owner_of_uri(uri)
        if owner is None:
            from ..features.resources import SCHEME
            from ..protocol.dispatcher import RESOURCE_NOT_FOUND

            raise ProtocolError(
                RESOURCE_NOT_FOUND,
                f"Resource not found: {uri}",
                {"uri": uri, "libraries": [f"{SCHEME}://{n}/" for n in self.libraries]},
            )
        return self.libraries[owner.bundle.metadata.name].latest.read_resource(uri)

    def list_prompts(self) -> dict:
        from ..features.prompts import SEARCH_PROMPT

        prompts = json.loads(json.dumps(self.apps[0].list_prompts()))
        library = {
            "name": LIBRARY_ARG,
            "description": f"Library: one of {', '.join(self.libraries)}.",
            "required": True,
        }
        for prompt in prompts["prompts"]:
            if prompt["name"] == SEARCH_PROMPT:
                prompt["arguments"] = [prompt["arguments"][0], library]
                prompt["description"] = prompt["description"].replace(
                    f"the {self.apps[0].bundle.metadata.name} documentation",
                    "the documentation of one library",
                )
            else:
                prompt["arguments"].append(library)
        return prompts

    def get_prompt(self, name: str, arguments: dict[str, str]) -> dict:
        name_of = arguments.get(LIBRARY_ARG, "").strip()
        lib = self.libraries.get(name_of)
        if lib is None:
            raise ProtocolError(
                INVALID_PARAMS,
                f"Invalid params: prompt '{name}' needs argument '{LIBRARY_ARG}', one of "
                f"{', '.join(self.libraries)}",
            )
        rest = {k: v for k, v in arguments.items() if k != LIBRARY_ARG}
        return lib.latest.get_prompt(name, rest)

    def complete(self, ref: dict, argument: dict, context: dict[str, str]) -> dict:
        from ..features.prompts import EXPLAIN_PROMPT

        if argument["name"] == LIBRARY_ARG and ref["type"] == "ref/prompt":
            value = argument["value"].casefold()
            names = [n for n in self.libraries if n.casefold().startswith(value)]
            return {"completion": {"values": names, "total": len(names), "hasMore": False}}
        if ref["type"] == "ref/resource":
            owner = None
            for lib in self.libraries.values():
                if lib.latest.docs_resources.template == ref["uri"]:
                    owner = lib.latest
            owner = owner or self._owner_of_uri(ref["uri"])
            if owner is not None:
                return owner.complete(ref, argument, context)
        lib = self.libraries.get(context.get(LIBRARY_ARG, ""))
        if lib is not None and ref["type"] == "ref/prompt" and ref["name"] == EXPLAIN_PROMPT:
            return lib.latest.complete(ref, argument, context)
        return {"completion": {"values": [], "total": 0, "hasMore": False}}
