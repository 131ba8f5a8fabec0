"""Django's own Sphinx directives (its `docs/_ext/djangodocs.py`), read as its site shows them.

- `.. console::` is a code block of shell commands (the site shows it twice, for Unix and
  Windows): 148 blocks (`$ python -m pip install Django`) read as paragraphs, no code.
- `.. django-admin:: makemigrations [app_label [app_label ...]]` declares the command named by
  its first word (Django's `parse_django_admin_node`), in the section of that name, and is the
  program of the options after it; the site shows the usage line. The command is an API entry
  (`get_api_reference("makemigrations")`), its text the section's; 12 of 35 were entries (those
  declared without arguments), none had the usage line.
- `.. django-admin-option:: --empty` is a command-line option of that command, as Sphinx's
  `option` (the entry `makemigrations --empty`, the name `:option:` roles give); its text is
  the paragraphs after it (rst_declarations.describe_bare_options): 145 options, 0 entries.

- `.. templatetag::`, `.. templatefilter::`, `.. fieldlookup::` declare an entry wherever they
  stand (rst_declarations): on the section named for them, else in place (48 of 218 stood
  before a section named otherwise, or in a stack over one, and were no entry).

Django's cross-reference roles (`:ttag:`, `:tfilter:`, `:lookup:`, `:djadmin:`) are code roles
(rst_directives._CODE_ROLES): Sphinx shows them as code linking to the declaration.
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import directives

from docsmcp.sources.formats.rst.rst_directives import _Code, _Described, _Unknown
from docsmcp.sources.formats.rst.rst_objects import STATE


class _Console(_Code):
    """`.. console::`: a code block of the `console` language."""

    optional_arguments = 0

    def run(self) -> list[nodes.Node]:
        out = super().run()
        out[0]["language"] = "console"
        return out


class _DjangoAdmin(_Unknown):
    """`.. django-admin:: NAME [ARGS]`: the declaration of command NAME (an entry, on the
    section named for it) and its usage line, shown as code; NAME is the program of the
    options after it."""

    def run(self) -> list[nodes.Node]:
        usage = " ".join(self.arguments).strip()
        noindex = bool({"noindex", "no-index"} & self.options.keys())
        self.options = {}  # (read: the declaration is bare)
        command = usage.split()[0] if usage else ""
        state = STATE.get()
        if state is not None and command:
            state.program = command
        self.arguments = [command] if command else []
        out = super().run()
        if not command:
            return out
        if noindex:  # (staticfiles' `runserver` again: its usage line, no second target)
            out = []
        else:
            out[0]["declares"] = command
            out[0]["signature"] = f"django-admin {usage}"
        line = nodes.paragraph(classes=["signature"])
        line += nodes.literal(f"django-admin {usage}", f"django-admin {usage}")
        return [*out, line]


class _Declaration(_Unknown):
    """`.. templatetag:: csrf_token` (`templatefilter`, `fieldlookup`): Django's cross-reference
    types (`add_crossref_type`), a target and an entry wherever they stand; `:noindex:` ones
    (GeoDjango's `exact` again) neither, as in Sphinx."""

    def run(self) -> list[nodes.Node]:
        if {"noindex", "no-index"} & self.options.keys():
            return []
        out = super().run()
        if "bare" in out[0]["classes"]:
            out[0]["declares"] = self.arguments[0]
        return out


class _DjangoAdminOption(_Described):
    """`.. django-admin-option:: --name`: a command-line option of the current command."""

    def run(self) -> list[nodes.Node]:
        self.name = "option"  # (Django's Cmdoption is Sphinx's `option`)
        return super().run()


def register() -> None:
    """Django's directives beside Sphinx's (rst.py calls it after rst_directives' own, whose
    classes these subclass: registered here, not there, so neither module imports the other)."""
    for name, directive in DIRECTIVES.items():
        directives.register_directive(name, directive)


DIRECTIVES = {
    "console": _Console,
    "templatetag": _Declaration,
    "templatefilter": _Declaration,
    "fieldlookup": _Declaration,
    "django-admin": _DjangoAdmin,
    "django-admin-option": _DjangoAdminOption,
}
