"""Hugo's include shortcode, `{{% include "file.md" %}}` or `{{< include file >}}` on a line of
its own: the file's markdown where it stands (shortcode_includes.py reads it for includes.py,
through `_Reader._inline`, so what it includes in turn is read too).

Hugo has no include shortcode of its own: a site defines it in
`layouts/shortcodes/include.html` (or `layouts/_shortcodes/`). The common form, OpenTelemetry's
and Docsy sites', finds the file as a page through `.GetPage`, from the including page up its
ancestor sections; OpenTelemetry's puts `_includes/` before a path that starts with neither
`.` nor `/`. So a path is looked up (`candidates`):

- starting with `/`: from the content root (hugo_site.py), then from the site's folder (a
  shortcode that calls `readFile`);
- otherwise first in the content root's `includes/` bundle (Kubernetes' shortcode), then in the
  page's folder and each folder above it up to the content root, in each first under
  `_includes/` (unless the path starts with `.`), then as written; then from the site's folder;
  a path without a suffix as `x.md`, `x/index.md`, `x/_index.md` (Hugo's logical paths).

The included file's front matter goes. The other arguments replace `{{ $name }}` in its text
(positional ones by their place, the path being `$0`: OpenTelemetry's `{{% include
"exporters/outro.md" `https://…` %}}` fills `{{ $1 }}`), and `{{ if $name }}` … `{{ end }}`
blocks starting lines keep their lines when the argument is given and not "false" (`{{ if not
$name }}` the other way), as OpenTelemetry's include partial does. In a Quarto project the
`{{< include >}}` line is Quarto's (quarto.py).
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from docsmcp.sources.frontmatter import split_frontmatter
from docsmcp.sources.sites.hugo_site import Site

# `{{% include ... %}}`, `{{< include ... >}}`, with Hugo's `-` whitespace trims and `/` of a
# self-closing call; its arguments (group 3) are read by `_ARG`.
INCLUDE = re.compile(
    r"^([ \t]*)\{\{(?:(%)|<)-?[ \t]*include[ \t]+((?:(?!\}\})[^\n])*?)[ \t]*/?[ \t]*-?(?(2)%|>)\}\}"
    r"((?:[ \t]*\{\{[<%][^\n]*?[>%]\}\})*)[ \t]*$"
)
# (group 4: shortcodes after it on its line, Kubernetes' `{{< include "task-tutorial-prereqs.md"
# >}} {{< version-check >}}` in 64 pages: the line after the included text.)
# One argument: `name=value` or a value, quoted with "…", '…' or `…` (Go's raw string), or bare.
_ARG = re.compile(r"""(?:([\w-]+)=)?(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|`([^`]*)`|([^\s"'`]+))""")
_PLACEHOLDER = re.compile(r"\{\{-?\s*\$([\w-]+)\s*-?\}\}")
_IF = re.compile(r"(?ms)^\{\{-?\s*if(\s+not)?\s+\$([\w-]+)\s*-?\}\}(.*?)^\{\{-?\s*end\s*-?\}\}")
_SUFFIX = re.compile(r"\.[A-Za-z0-9]+$")
# Folders an include is looked up in, at most (a page deeper than this under its content root
# is not met on real sites).
MAX_LEVELS = 32


@dataclass(frozen=True)
class Call:
    indent: str
    path: str
    args: dict[str, str]  # positional ones by their place ("0" is the path), named by name
    after: str = ""  # shortcodes after it on its line, read on a line of their own


def call(line: str) -> Call | None:
    """The include shortcode `line` is, or None."""
    m = INCLUDE.match(line)
    if m is None:
        return None
    args: dict[str, str] = {}
    place = 0
    for a in _ARG.finditer(m.group(3)):
        value = next((g for g in a.groups()[1:] if g is not None), "")
        if a.group(1):
            args[a.group(1)] = value
        else:
            args[str(place)] = value
            place += 1
    path = args.get("file") or args.get("0", "")
    return Call(m.group(1), path, args, m.group(4).strip()) if path.strip() else None


def candidates(page: str, spec: str, docs_dir: Path, site: Site | None) -> list[str]:
    """Where the include `spec` of `page` may be, relative to docs_dir, first first (see the
    module docstring)."""
    content = site.content if site is not None else docs_dir
    top = posixpath.normpath(os.path.relpath(content, docs_dir))
    bases: list[str] = []
    names = [spec.lstrip("/")] if spec.startswith("/") else []
    if spec.startswith("/"):
        bases.append(top)
    else:
        folder = posixpath.dirname(page) or "."
        while True:  # (up the ancestor sections, as the site's `.Parent` walk goes)
            bases.append(folder)
            if folder == top or len(bases) > MAX_LEVELS:
                break
            folder = posixpath.normpath(posixpath.join(folder, ".."))
        names = [spec] if spec.startswith(".") else [f"_includes/{spec}", spec]
    out = [posixpath.normpath(posixpath.join(b, n)) for b in bases for n in names]
    if not spec.startswith((".", "/")):
        # Kubernetes' include shortcode looks first in the content root's `includes` bundle
        # (`site.GetPage "includes"`, then `.Resources.GetMatch`): its 108 prerequisites notes.
        out.insert(0, posixpath.normpath(posixpath.join(top, "includes", spec)))
    if site is not None:
        out.append(posixpath.normpath(os.path.relpath(site.root / spec.lstrip("/"), docs_dir)))
    if not _SUFFIX.search(spec):
        out = [f"{c}{tail}" for c in out for tail in (".md", "/index.md", "/_index.md")]
    return list(dict.fromkeys(out))


def included(found: Call, text: str) -> list[str]:
    """The lines the call inserts from the file's `text`: without its front matter, with the
    call's arguments in (see the module docstring)."""
    if text.startswith(("---", "+++")):
        text = split_frontmatter(text).body.lstrip("\n")
    if "{{" in text:
        text = _IF.sub(lambda m: _kept(m, found.args), text)
        text = _PLACEHOLDER.sub(lambda m: found.args.get(m.group(1), m.group(0)), text)
    return text.rstrip("\n").split("\n")


def _kept(m: re.Match[str], args: dict[str, str]) -> str:
    """What an `{{ if $name }}` block leaves: its lines, or none."""
    name = m.group(2)
    if name not in args:
        return m.group(0)  # (OpenTelemetry's partial leaves a block of no argument as written)
    given = args[name] not in ("", "false")
    return m.group(3) if given != bool(m.group(1)) else ""


# Shortcodes that show a file of the site as a code block, on a line of their own: Kubernetes'
# `{{% code_sample file="pods/simple-pod.yaml" %}}` (`codenew` and `code` before it: 289 sample
# manifests its pages showed as nothing), Docsy's `{{< readfile file="x.yaml" code="true"
# lang="yaml" >}}` (without `code="true"`, the file's markdown where it stands).
CODE = re.compile(
    r"^([ \t]*)\{\{(?:(%)|<)-?[ \t]*(code_sample|codenew|code|readfile)[ \t]+([^\n]*?)"
    r"[ \t]*/?[ \t]*-?(?(2)%|>)\}\}[ \t]*$"
)
_LANGUAGES = {"yml": "yaml", "sh": "shell", "txt": "", "md": "markdown"}


@dataclass(frozen=True)
class CodeCall:
    indent: str
    path: str
    language: str  # the block's info string ("" none)
    code: bool  # a code block (else readfile's markdown, read as the page's)


def code_call(line: str) -> CodeCall | None:
    """The file-showing shortcode `line` is (see CODE), or None."""
    m = CODE.match(line)
    if m is None:
        return None
    args = {
        a.group(1): next((g for g in a.groups()[1:] if g is not None), "")
        for a in _ARG.finditer(m.group(4))
        if a.group(1)
    }
    path = args.get("file", "").strip()
    if not path:
        return None
    suffix = _SUFFIX.search(path)
    ext = suffix.group(0)[1:].lower() if suffix else ""
    language = args.get("language") or args.get("lang") or _LANGUAGES.get(ext, ext)
    code = m.group(3) != "readfile" or args.get("code", "").lower() == "true"
    return CodeCall(m.group(1), path, language, code)


def code_candidates(page: str, spec: str, docs_dir: Path, site: Site | None) -> list[str]:
    """Where the file of a code shortcode of `page` may be, first first: beside the page (a
    bundle's resource), the content root's `examples/` (Kubernetes' `/content/<lang>/examples/`),
    the site's folder (Hugo's `readFile`)."""
    content = site.content if site is not None else docs_dir
    top = posixpath.normpath(os.path.relpath(content, docs_dir))
    name = spec.lstrip("/")
    out = [posixpath.normpath(posixpath.join(posixpath.dirname(page) or ".", name))]
    out.append(posixpath.normpath(posixpath.join(top, "examples", name)))
    if site is not None:
        out.append(posixpath.normpath(os.path.relpath(site.root / name, docs_dir)))
    return list(dict.fromkeys(out))


# Kubernetes' tab of a file: `{{< tab name="Bash" include="included/configs-bash.md" />}}` in a
# `{{< tabs >}}` set (95 tabs: kubectl's shell completion, kubeadm's platforms) shows the file,
# found from the page's folder; its name is the tab's label.
TAB = re.compile(
    r"^([ \t]*)\{\{<-?[ \t]*tab[ \t]+([^\n]*?\binclude=[^\n]*?)[ \t]*/?[ \t]*-?>\}\}[ \t]*$"
)


def tab_call(line: str) -> tuple[Call, str] | None:
    """The tab-of-a-file shortcode `line` is (see TAB): the include, its label; or None."""
    m = TAB.match(line)
    if m is None:
        return None
    args = {
        a.group(1): next((g for g in a.groups()[1:] if g is not None), "")
        for a in _ARG.finditer(m.group(2))
        if a.group(1)
    }
    path = args.get("include", "").strip()
    return (Call(m.group(1), path, {"0": path}), args.get("name", "").strip()) if path else None
