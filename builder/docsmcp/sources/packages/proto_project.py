"""Which `.proto` files of a docs tree are pages: the API's own, the ones protoc-gen-doc or the
Buf Schema Registry publishes (formats/source/protodoc.py makes the pages).

A tree with a `buf.work.yaml` (its `directories`) or a `buf.yaml` (v2: its `modules`' paths,
`.` when it names none; v1: its own folder) publishes the modules' files, less each module's
`excludes` (v2) or `build.excludes` (v1); a `.proto` outside every module is code. A tree without
either publishes the docs folder's `.proto` files. Either way, inside a module (or the docs
folder) these are code, not pages: files under `third_party/`, `vendor/`, `external/`, test,
example and benchmark folders, `*_test.proto`, and the well-known types copied in
(`google/protobuf/*.proto`) unless they are all the tree holds (the tree is protobuf's own).
A module named by its folder is the tree: `--docs-dir examples/protos` publishes its files.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from pathlib import Path

from docsmcp.sources.files import PROTO_SUFFIXES
from docsmcp.sources.packages.project_files import folders_above
from docsmcp.sources.settings import read_page_text

log = logging.getLogger(__name__)

BUF_WORK = "buf.work.yaml"
BUF = "buf.yaml"
MAX_CONFIGS = 100  # buf.yaml files read in one tree (a monorepo of modules has a few)
# Folders (below a module) whose `.proto` files are no page: copies of other APIs, tests and
# examples (grpc's `examples/protos`, Envoy's `bazel/…/testdata`).
_NOT_PAGES = frozenset(
    """third_party third-party thirdparty vendor vendored external node_modules test tests
    testdata testing test_data example examples sample samples benchmark benchmarks
    fixtures""".split()
)
_WELL_KNOWN = "google/protobuf/"


def _yaml(docs_dir: Path, roots: Sequence[Path], path: str) -> dict:
    import yaml  # (only for a tree holding buf files)

    text, problem = read_page_text(docs_dir, path, roots)
    if problem is not None:
        log.warning("%s", problem)
    try:
        data = yaml.safe_load(text or "")
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _clean(folder: str, path: str) -> str:
    """`path` (a module's folder as a buf file writes it) relative to the docs folder."""
    parts = [p for p in f"{folder}/{path}".split("/") if p and p != "."]
    return "/".join(parts)


def _configs(docs_dir: Path, protos: Sequence[str], name: str) -> list[str]:
    """The `name` files (buf.yaml, buf.work.yaml) in the docs folder and the folders above its
    `.proto` files, shallowest first."""
    found = []
    for folder in folders_above(protos):
        path = f"{folder}/{name}" if folder else name
        if (docs_dir / path).is_file():
            found.append(path)
            if len(found) >= MAX_CONFIGS:
                break
    return found


def modules(
    docs_dir: Path, roots: Sequence[Path], protos: Sequence[str]
) -> dict[str, tuple[str, ...]]:
    """The buf modules of the tree holding `protos`: folder (relative to the docs folder, ""
    for itself) -> its excluded folders (relative to the docs folder); {} when the tree has no
    buf file."""
    docs_dir = Path(docs_dir)
    out: dict[str, tuple[str, ...]] = {}
    for path in _configs(docs_dir, protos, BUF_WORK):
        folder = path.rpartition("/")[0]
        for d in _strings(_yaml(docs_dir, roots, path).get("directories")):
            out.setdefault(_clean(folder, d), ())
    for path in _configs(docs_dir, protos, BUF):
        folder = path.rpartition("/")[0]
        data = _yaml(docs_dir, roots, path)
        if str(data.get("version", "")).lower() == "v2":
            found = data.get("modules")
            for m in found if isinstance(found, list) and found else [{"path": "."}]:
                if not isinstance(m, dict):
                    continue
                where = _clean(folder, str(m.get("path") or "."))
                excludes = tuple(_clean(folder, e) for e in _strings(m.get("excludes")))
                out[where] = tuple(dict.fromkeys((*out.get(where, ()), *excludes)))
        else:  # v1 (or no version): the folder is the module
            build = data.get("build")
            excludes = _strings(build.get("excludes")) if isinstance(build, dict) else []
            out[folder] = tuple(_clean(folder, e) for e in excludes)
    return out


def _inside(path: str, folder: str) -> bool:
    return not folder or path.startswith(folder + "/")


def pages(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> set[str]:
    """The `.proto` files of `listed` that are the API's pages."""
    listed = list(listed)
    protos = [p for p in listed if p.lower().endswith(PROTO_SUFFIXES)]
    if not protos:
        return set()
    found = modules(docs_dir, roots, protos) or {"": ()}
    out: set[str] = set()
    for p in protos:
        module = max((m for m in found if _inside(p, m)), key=len, default=None)
        if module is None or any(_inside(p, e) for e in found[module] if e):
            continue
        inner = p[len(module) + 1 :] if module else p
        folders = inner.lower().split("/")[:-1]
        if _NOT_PAGES & set(folders) or inner.lower().endswith("_test.proto"):
            continue
        out.add(p)
    own = {p for p in out if _WELL_KNOWN not in p}
    return own or out  # (copied well-known types are no page, unless they are the tree)


def no_pages(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> set[str]:
    """The `.proto` files of `listed` that are no page (see the module docstring)."""
    listed = list(listed)
    protos = {p for p in listed if p.lower().endswith(PROTO_SUFFIXES)}
    if not protos:
        return set()
    return protos - pages(docs_dir, roots, listed)
