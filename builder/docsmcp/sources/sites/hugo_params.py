"""Hugo's `{{% param name %}}` shortcode as the value it shows, from the page's front matter or
an ancestor section's `cascade` (what Hugo passes down from `_index.md`); Quarto's `{{< meta
name >}}` alike, with its folders' `_metadata.yml` (Quarto's docs: 82 `meta tool.name`).

OpenTelemetry's Collector pages write `docker pull otel/opentelemetry-collector:{{% param vers
%}}` with `cascade: {vers: 0.158.0}` in `collector/_index.md`: the commands a reader copies
showed the shortcode (103 times in code, 100 in prose as "param vers"). A page's own value wins
over a cascade, a nearer section's over a farther one, the site's `params` (of the content's
language first) last (Kubernetes' `{{< param "version" >}}`: v1.31); `a.b` looks into maps;
names compare without case, as Hugo's do. A name found nowhere is left as written. Done once
every page is read (corpus.py), on the page's text before it is parsed, which keeps its lines;
a page using it is read on every build (it gets a line map, which known_files.py does not
record), since an ancestor's front matter may change.
"""

from __future__ import annotations

import dataclasses
import json
import posixpath
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from docsmcp.model.source import SourceFile
from docsmcp.sources.site_config import QUARTO_CONFIG, read_yaml
from docsmcp.sources.sites import hugo_site

# (Quarto's `{{< meta title >}}` reads the page's metadata alike.)
PARAM = re.compile(r"""\{\{([<%])-?[ \t]*(?:param|meta)[ \t]+["']?([\w.-]+)["']?[ \t]*-?[>%]\}\}""")
_SECTION_PAGES = ("_index.md", "index.md", "_index.markdown")


def _lower(value: object) -> object:
    """A front matter value with its maps' keys in lower case (Hugo's keys have no case)."""
    if isinstance(value, Mapping):
        return {str(k).lower(): _lower(v) for k, v in value.items()}
    return value


def _front(sf: SourceFile) -> dict:
    try:
        data = json.loads(sf.frontmatter)
    except ValueError:
        return {}
    return _lower(data) if isinstance(data, dict) else {}  # type: ignore[return-value]


def _cascade(front: Mapping[str, object]) -> dict:
    """A section's `cascade` values for its pages (a list: the entries without a `target`)."""
    value = front.get("cascade")
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, list):
        merged: dict = {}
        for entry in value:
            if isinstance(entry, Mapping) and "_target" not in entry and "target" not in entry:
                merged = {**entry, **merged}
        return merged
    return {}


def _lookup(scopes: Sequence[Mapping[str, object]], name: str) -> str | None:
    """The scalar value of `name` (`a.b`: key b of map a) in the first scope holding it."""
    keys = name.lower().split(".")
    for scope in scopes:
        for start in (scope, scope.get("params")):  # (`params:` holds a page's own in Hugo 0.1xx)
            value: object = start
            for key in keys:
                value = value.get(key) if isinstance(value, Mapping) else None
            if isinstance(value, str | int | float) and not isinstance(value, bool):
                return str(value)
    return None


def _folder_metadata(docs_dir: Path | None, folder: str, cache: dict[str, dict]) -> dict:
    """A folder's Quarto metadata, which its pages inherit: `_metadata.yml`, over the
    project's `_quarto.yml` where that is the folder's ({} when none)."""
    if docs_dir is None:
        return {}
    if folder not in cache:
        merged: dict = {}
        for name in (QUARTO_CONFIG, "_metadata.yml"):  # (the project's, then the folder's)
            data = read_yaml(docs_dir / folder / name)
            merged.update(_lower(data) if isinstance(data, dict) else {})  # type: ignore[arg-type]
        cache[folder] = merged
    return cache[folder]


def site_params(docs_dir: Path | None, roots: Sequence[Path]) -> dict:
    """The Hugo configuration's `params` around `docs_dir` (those of the content's language
    over the site's), keys in lower case; {} without a site within the source roots."""
    site = hugo_site.find(docs_dir, roots) if docs_dir is not None else None
    config = _lower(hugo_site._load(site.config)) if site is not None else None
    if not isinstance(config, Mapping):
        return {}
    params = dict(config.get("params") or {})
    language = (config.get("languages") or {}).get(site.content.name.lower())  # type: ignore[union-attr]
    if isinstance(language, Mapping) and isinstance(language.get("params"), Mapping):
        params.update(language["params"])
    return params


def resolve(
    files: Sequence[SourceFile], docs_dir: Path | None = None, roots: Sequence[Path] = ()
) -> list[SourceFile]:
    """`files` with the `param` (and Quarto `meta`) shortcodes of their bodies replaced by
    their values; `docs_dir`: where a Quarto folder's `_metadata.yml` is read, and the Hugo
    site's configuration (within `roots`) whose `params` come last."""
    users = [
        k
        for k, sf in enumerate(files)
        if ("param" in sf.body or "meta" in sf.body) and PARAM.search(sf.body)
    ]
    if not users:
        return list(files)
    cascades: dict[str, dict] = {}  # folder -> its section page's cascade
    for sf in files:
        folder, name = posixpath.split(sf.path)
        if name in _SECTION_PAGES and "cascade" in sf.frontmatter:
            cascades[folder] = _cascade(_front(sf))
    out = list(files)
    metadata: dict[str, dict] = {}
    site = {"params": site_params(docs_dir, roots)}  # (Hugo's `.Param`: the site's last)
    for k in users:
        sf = files[k]
        scopes = [_front(sf)]
        folder = posixpath.dirname(sf.path)
        while True:
            if folder in cascades:
                scopes.append(cascades[folder])
            if meta := _folder_metadata(docs_dir, folder, metadata):
                scopes.append(meta)
            if not folder:
                break
            folder = posixpath.dirname(folder)
        scopes.append(site)

        def value(m: re.Match[str], scopes: list = scopes) -> str:
            found = _lookup(scopes, m.group(2))
            return m.group(0) if found is None else found

        # A line map says the body is not the file's text: the parse cache keys the body
        # then, and the record of known files leaves the page out (read on every build).
        line_map = sf.line_map or tuple(range(sf.body.count("\n") + 1))
        out[k] = dataclasses.replace(sf, body=PARAM.sub(value, sf.body), line_map=line_map)
    return out
