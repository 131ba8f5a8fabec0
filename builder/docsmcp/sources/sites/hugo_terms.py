"""Hugo shortcodes whose text is another page's or the site's, as a reader sees them: the
Kubernetes website's (and the sites built from its layouts), read once every page is read
(corpus.py), on a page's text before it is parsed, line for line.

- `{{< glossary_tooltip text="Pods" term_id="pod" >}}` shows its text, else the title of the
  glossary term (`docs/reference/glossary/pod.md`); written over two lines it was left as
  written (66 chunks), without `text` it read "glossary tooltip" (98 times: "If a glossary
  tooltip dies").
- `{{< glossary_definition term_id="etcd" length="all" prepend="etcd is" >}}` shows the term's
  definition: its first paragraph (`short`) or all of it, on the shortcode's line (the sections
  "kube-apiserver", "etcd", ... of the architecture page were empty).
- `{{% heading "whatsnext" %}}` shows the site's translation of `whatsnext_heading` (`T`, from
  its `i18n/` folder or the language's `i18nDir`): "What's next"; 1,171 headings read
  "heading whatsnext", "heading prerequisites", ...
- `{{< feature-state for_k8s_version="v1.29" state="beta" >}}` shows "FEATURE STATE: Kubernetes
  v1.29 [beta]" (with `feature_gate_name`, the gate page's last stage).
- `{{< version-check >}}` shows "Your Kubernetes server must be at or later than version v1.29.
  To check the version, enter `kubectl version`." (the page's `min-kubernetes-server-version`;
  87 prerequisites read "version check").
- `{{< skew currentVersion >}}` shows the version the site's `version`/`latest` parameters
  compute (`currentVersionAddMinor -1`: 1.30; the patch release as `.0`): 281 calls, in the
  commands a reader copies too (`curl -LO https://dl.k8s.io/release/v1.31.0/...`).
- `{{% thirdparty-content %}}` shows the site's note on third-party projects (its i18n strings,
  `single="true"` the one on an item, `vendor="true"` on vendors) as markdown, its links kept
  but the one to the disclaimer the layout adds at the page's foot: 40 calls showed nothing.
- `{{< api-reference page="workload-resources/pod-v1" anchor="PodSpec" >}}` shows a link to
  the API reference's page (`docs/reference/kubernetes-api/...` from the content root), read
  as its `text`, else the anchor, else the kind the page documents (`api_metadata.kind`): 15
  calls read "api reference" ("Read the api reference to understand the Deployment API").
- The feature-gate table, list and description become the lines they show (hugo_gates.py).

A glossary term is a page of the corpus whose folder is named `glossary` (its front matter's
`title`); a term of no such page shows its id, words apart. Pages using these get a line map
(read on every build, as hugo_params' do: the term's page may change).
"""

from __future__ import annotations

import dataclasses
import html
import json
import posixpath
import re
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from itertools import accumulate
from pathlib import Path

from docsmcp.model.source import SourceFile
from docsmcp.sources.formats.markdown.fences import fenced_lines
from docsmcp.sources.site_config import LANGUAGE, read_text
from docsmcp.sources.sites import hugo_gates, hugo_params, hugo_site

# One of the shortcodes this module reads, over at most a few lines (group 1: its name, group 2:
# its arguments).
SHORTCODE = re.compile(
    r"\{\{([<%])\s*(glossary_tooltip|glossary_definition|heading|feature-state|skew|"
    r"version-check|thirdparty-content|api-reference)\b"
    r"((?:[^{}<>%]|\n){0,400}?)[ \t]*/?[ \t]*[>%]\}\}"
)
_ARG = re.compile(r"""(?:([\w-]+)=)?(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([^\s"'=]+))""")
_MORE = re.compile(r"<!--\s*more\s*-->")
_I18N_DIR = re.compile(r"""(?m)^[ \t]*i18nDir[ \t]*[=:][ \t]*["']?([^"'\n]+?)["']?[ \t]*$""")


@dataclasses.dataclass(frozen=True)
class _Term:
    title: str
    definition: str  # the body, markdown


def _args(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    place = 0
    for a in _ARG.finditer(text):
        value = next((g for g in a.groups()[1:] if g is not None), "")
        if a.group(1):
            out[a.group(1).lower()] = value
        else:
            out[str(place)] = value
            place += 1
    return out


def _front(sf: SourceFile) -> dict:
    try:
        data = json.loads(sf.frontmatter)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _terms(files: Sequence[SourceFile]) -> dict[str, _Term]:
    """Glossary terms by id: pages in a folder named `glossary` (the nearest to the docs' top
    first, as `docs/reference/glossary/` is Kubernetes')."""
    out: dict[str, _Term] = {}
    for sf in sorted(files, key=lambda f: (f.path.count("/"), f.path)):
        folder, name = posixpath.split(sf.path)
        if posixpath.basename(folder) != "glossary" or name in ("index.md", "_index.md"):
            continue
        term = posixpath.splitext(name)[0]
        title = str(_front(sf).get("title") or sf.title or term)
        out.setdefault(term, _Term(title, sf.body))
    return out


def _translations(site: hugo_site.Site | None) -> dict[str, str]:
    """The site's i18n strings of its language (`T`), by id: `i18n/<lang>.toml|yaml|json` in
    the site's folder or the `i18nDir` its configuration names (`<dir>/<lang>/<lang>.toml`, as
    Kubernetes' `data/i18n/en/en.toml`)."""
    if site is None:
        return {}
    lang = site.content.name if LANGUAGE.match(site.content.name) else "en"
    folders = [site.root / "i18n"]
    config = read_text(site.config)
    folders += [site.root / m.group(1).strip().lstrip("./") for m in _I18N_DIR.finditer(config)]
    out: dict[str, str] = {}
    for folder in folders:
        for path in (folder / lang / lang, folder / lang):
            for suffix in (".toml", ".yaml", ".yml", ".json"):
                data = _read(path.with_name(path.name + suffix))
                for key, value in _strings(data).items():
                    out.setdefault(key, value)
    return out


def _read(path: Path) -> object:
    """An i18n file's data (None: none there, or unreadable), read as the configuration is."""
    return hugo_site._load(path) if path.is_file() else None  # (the configuration's reader)


def _strings(data: object) -> dict[str, str]:
    """An i18n file's strings: `id = "x"`, `[id] other = "x"`, go-i18n's `- id:` lists."""
    out: dict[str, str] = {}
    if isinstance(data, list):
        for entry in data:
            if isinstance(entry, Mapping) and isinstance(entry.get("translation"), str):
                out[str(entry.get("id"))] = entry["translation"]
    elif isinstance(data, Mapping):
        for key, value in data.items():
            if isinstance(value, Mapping):
                value = value.get("other", value.get("one"))
            if isinstance(value, str):
                out[str(key)] = value
    return out


def _one_line(markdown: str) -> str:
    """Markdown paragraphs as one line (the shortcode's own: a page keeps its line count)."""
    return " ".join(line.strip() for line in markdown.split("\n") if line.strip())


def _definition(term: _Term, args: Mapping[str, str]) -> str:
    body = _MORE.sub("\n\n", term.definition).strip()
    paragraphs = [p for p in re.split(r"\n[ \t]*\n", body) if p.strip()]
    if not paragraphs:
        return ""
    first = _one_line(paragraphs[0])
    if prepend := args.get("prepend", "").strip():
        first = f"{prepend} {first[:1].lower()}{first[1:]}"
    if args.get("length", "short") not in ("long", "all"):
        return first
    return " ".join([first, *(_one_line(p) for p in paragraphs[1:])])


def _skew(params: Mapping[str, object], args: Mapping[str, str]) -> str:
    """Kubernetes' `{{< skew currentVersionAddMinor -1 >}}`: a version from the site's
    `latest` and `version` parameters ("" for a name it does not compute)."""
    which = args.get("0", "")
    base = str(params.get("version" if which.startswith("current") else "latest", ""))
    major, _, minor = base.lstrip("v").partition(".")
    if not minor.isdigit():
        return ""
    if which in ("currentVersion", "latestVersion"):
        return f"{major}.{minor}"
    if which == "currentPatchVersion":
        return f"{major}.{minor}.0"
    step = {"nextMinorVersion": 1, "prevMinorVersion": -1, "oldestMinorVersion": -2}.get(which)
    separator = "."
    if which.endswith("AddMinor"):
        step, separator = int(args.get("1", "0") or 0), args.get("2") or "."
    return "" if step is None else f"{major}{separator}{int(minor) + step}"


# Kubernetes' English strings of its version check (the site's i18n file says them first).
_VERSION_CHECK = {
    "version_check_mustbe": "Your Kubernetes server must be version ",
    "version_check_mustbeorlater": "Your Kubernetes server must be at or later than version ",
    "tocheck": "To check the version, enter ",
}


# The site's English notes on third-party content (its i18n file says them first).
_THIRDPARTY = (
    "This section links to third party projects that provide functionality required by "
    "Kubernetes. The Kubernetes project authors aren't responsible for these projects, which "
    "are listed alphabetically."
)
_THIRDPARTY_SINGLE = "This item links to a third party project or product that is not part of "
_THIRDPARTY_SINGLE += "Kubernetes itself."
# Where `api-reference` finds its pages, from the content root.
_API_BASE = "docs/reference/kubernetes-api"
_LINK = re.compile(r"""<a\b[^>]*?\bhref=["']([^"']*)["'][^>]*>(.*?)</a>""", re.S)
_TAG = re.compile(r"</?[a-zA-Z][^<>]*>")


def _markdown(text: str) -> str:
    """An i18n string's HTML as one line of markdown: a link as a link, other tags left out;
    a link to a part of the page the layout adds (`#third-party-content-disclaimer`, at its
    foot) is left out with its text."""

    def link(m: re.Match[str]) -> str:
        href, inner = m.group(1), _TAG.sub("", m.group(2)).strip()
        return "" if href.startswith("#") else f"[{inner}]({href})"

    text = _TAG.sub(" ", _LINK.sub(link, text))
    return " ".join(html.unescape(text).split())


def _api_kinds(files: Sequence[SourceFile], prefix: str) -> dict[str, str]:
    """The kind (`api_metadata.kind`) each page of the API reference documents, by its path
    from the content root (`prefix`: the docs folder's) without suffix."""
    out: dict[str, str] = {}
    for sf in files:
        if "api_metadata" not in sf.frontmatter:
            continue
        meta = _front(sf).get("api_metadata")
        if isinstance(meta, Mapping) and meta.get("kind"):
            page = posixpath.splitext(posixpath.join(prefix, sf.path))[0]
            if posixpath.basename(page) in ("index", "_index"):
                page = posixpath.dirname(page)
            out[page] = str(meta["kind"])
    return out


def _prefix(docs_dir: Path, site: hugo_site.Site | None) -> str:
    """The docs folder's path from the site's content root ("docs"; "" at the top)."""
    if site is None:
        return ""
    try:
        prefix = docs_dir.resolve().relative_to(site.content.resolve()).as_posix()
    except ValueError:
        return ""
    return "" if prefix == "." else prefix


@dataclasses.dataclass(frozen=True)
class _Site:
    terms: Mapping[str, _Term]
    gates: Mapping[str, hugo_gates.Gate]
    translations: Mapping[str, str]
    params: Mapping[str, object]  # the Hugo configuration's
    # The API reference's pages by their path from the content root, without suffix
    # ("docs/reference/kubernetes-api/workload-resources/pod-v1"): their kind ("Pod").
    api_kinds: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def shown(self, name: str, args: Mapping[str, str], front: Mapping | None = None) -> str:
        """What the shortcode `name` called with `args` shows (`front`: the page's front
        matter)."""
        if name == "skew":
            return _skew(self.params, args)
        if name == "version-check":
            return self._version_check(front or {})
        if name == "thirdparty-content":
            return self._thirdparty(args)
        if name == "api-reference":
            return self._api_reference(args)
        if name == "heading":
            key = args.get("0", "")
            return self.translations.get(f"{key}_heading") or key.replace("_", " ").capitalize()
        if name == "feature-state":
            label = self.translations.get("feature_state", "FEATURE STATE:")
            if gate := args.get("feature_gate_name"):
                known = self.gates.get(gate)
                return f"{label} `{known.state() if known else gate}`"
            version, state = args.get("for_k8s_version", ""), args.get("state", "")
            return f"{label} `Kubernetes {version} [{state}]`" if state else ""
        term_id = args.get("term_id", "")
        term = self.terms.get(term_id)
        if name == "glossary_tooltip":
            return args.get("text") or (term.title if term else re.sub(r"[-_]", " ", term_id))
        # glossary_definition: its definition, shortcodes in it read as well (one level deep)
        text = _definition(term, args) if term else ""
        return SHORTCODE.sub(lambda m: self._plain(m), text)

    def _thirdparty(self, args: Mapping[str, str]) -> str:
        """Kubernetes' note above a list of third-party projects (`single="true"`: on one
        item; `vendor="true"`: of vendors), the site's i18n strings as markdown."""
        t = self.translations.get
        if args.get("single") == "true":
            return _markdown(t("thirdparty_message_single_item", _THIRDPARTY_SINGLE))
        key = "thirdparty_message_vendor" if args.get("vendor") == "true" else "thirdparty_message"
        message = _markdown(t(key, _THIRDPARTY))
        return f"**{_markdown(t('note', 'Note:'))}** {message}"

    def _api_reference(self, args: Mapping[str, str]) -> str:
        """A link to a page of the API reference (`docs/reference/kubernetes-api/<page>`, at
        `anchor`), read as its `text`, else the anchor, else the kind the page documents."""
        page = posixpath.normpath(posixpath.join(_API_BASE, args.get("page", "").strip("/")))
        anchor = args.get("anchor", "")
        kind = self.api_kinds.get(page) or posixpath.basename(page)
        text = args.get("text") or anchor or kind
        return f"[{text}](/{page}/{'#' + anchor if anchor else ''})"

    def _version_check(self, front: Mapping) -> str:
        """Kubernetes' prerequisite line: the server version the page needs (its front matter's
        `min-kubernetes-server-version`), and how to check it."""
        least = str(front.get("min-kubernetes-server-version") or "")
        exact = least == str(self.params.get("version", ""))
        key = "version_check_mustbe" if exact else "version_check_mustbeorlater"
        must = self.translations.get(key, _VERSION_CHECK[key])
        needs = f"{must}{least}. " if least else ""
        check = self.translations.get("version_check_tocheck", _VERSION_CHECK["tocheck"])
        return f"{needs}{check}`kubectl version`."

    def _plain(self, m: re.Match[str]) -> str:
        return (
            "" if m.group(2) == "glossary_definition" else self.shown(m.group(2), _args(m.group(3)))
        )


def resolve(
    files: Sequence[SourceFile], docs_dir: Path, roots: Sequence[Path] = ()
) -> list[SourceFile]:
    """`files` with these shortcodes (see the module docstring) replaced by what they show."""
    users = [
        k
        for k, sf in enumerate(files)
        if "{{" in sf.body and (SHORTCODE.search(sf.body) or "feature-gate-" in sf.body)
    ]
    if not users:
        return list(files)
    found = hugo_site.find(docs_dir, roots)
    params = hugo_params.site_params(docs_dir, roots)
    strings = _translations(found)
    kinds = _api_kinds(files, _prefix(docs_dir, found))
    site = _Site(_terms(files), hugo_gates.gates(files), strings, params, kinds)
    out = list(files)

    for k in users:
        # (a feature gate's table or list first: its descriptions' shortcodes read below)
        sf = hugo_gates.expand(files[k], site.gates, strings, _args)
        lines = sf.body.split("\n")
        code = fenced_lines(lines)
        starts = list(accumulate((len(x) + 1 for x in lines), initial=0))

        front = _front(sf)

        def shown(
            m: re.Match[str],
            code: list[bool] = code,
            starts: list[int] = starts,
            front: dict = front,
        ) -> str:
            row = bisect_right(starts, m.start()) - 1
            if code[row] and m.group(2) != "skew":
                # (fenced: as written, where pages show the shortcodes; a version in the
                # commands a reader copies is the version)
                return m.group(0)
            text = site.shown(m.group(2), _args(m.group(3)), front)
            return text + "\n" * m.group(0).count("\n")  # (the page keeps its lines)

        line_map = sf.line_map or tuple(range(sf.body.count("\n") + 1))
        out[k] = dataclasses.replace(sf, body=SHORTCODE.sub(shown, sf.body), line_map=line_map)
    return out
