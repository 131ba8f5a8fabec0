"""A Go module outside the docs folder, named with `--api-source`, read as pkg.go.dev shows it
(go_source.with_api_sources): cobra's site (`site/content/`) built with `--api-source` of
cobra's repository had 0 API entries and only a warning."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
from conftest import page_texts, run_docsmcp

DOC_GO = """\
// Package router matches request paths to handlers.
//
// Use [NewRouter] and [Mux.Route].
package router

// Mux is a request router.
type Mux struct {
\t// Prefix is put before every pattern.
\tPrefix string
}

// NewRouter returns an empty router.
func NewRouter() *Mux { return &Mux{} }

// Route mounts a sub-router at pattern.
func (m *Mux) Route(pattern string, fn func(r *Mux)) {}
"""

LOGGER_GO = """\
// Package middleware wraps handlers.
package middleware

// Logger logs each request, as [router.Mux] serves it.
func Logger() {}
"""


def _module(root: Path, site: str = "site/content") -> tuple[Path, Path]:
    """A module (cobra's shape: its docs site inside it, at `site`) and its docs folder."""
    files = {
        "go.mod": "module example.com/router\n\ngo 1.22\n",
        "doc.go": DOC_GO,
        "middleware/logger.go": LOGGER_GO,
        "internal/tree/tree.go": "// Package tree is internal.\npackage tree\n",
        f"{site}/guide.md": "# Guide\n\nStart with a router.\n",
        f"{site}/example/main.go": "// Command example.\npackage main\n\nfunc main() {}\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root, root / site


def _names(out: Path) -> set[str]:
    return set(pq.read_table(out / "api.parquet").column("name").to_pylist())


def _build(docs: Path, out: Path, *extra: str | Path) -> str:
    done = run_docsmcp("build", "--docs-dir", docs, "--out", out, *extra)
    return done.stderr


def test_a_module_holding_the_docs_folder_is_read_as_its_package_pages(tmp_path: Path) -> None:
    module, docs = _module(tmp_path / "router")
    out = tmp_path / "idx"
    stderr = _build(docs, out, "--api-source", module)
    assert "--api-source" not in stderr  # (no warning: it is read)
    texts = page_texts(out)
    # the module's packages, in a folder named as the module's; the docs folder is not read
    # again from the module (its `example/main.go` has no go.mod of its own: no page at all)
    assert set(texts) == {"guide.md", "router/doc.go", "router/middleware/logger.go"}
    page = texts["router/doc.go"]
    assert "# example.com/router" in page and "func (m *Mux) Route(" in page
    assert "[middleware.Logger]" not in page and "[Mux.Route](<#Mux.Route>)" in page
    assert "[router.Mux](<../doc.go#Mux>)" in texts["router/middleware/logger.go"]
    assert {"router.Mux", "router.Mux.Route", "router.Mux.Prefix", "middleware.Logger"} <= (
        _names(out)
    )


def test_a_module_beside_the_docs_folder_is_read_and_named_apart(tmp_path: Path) -> None:
    """A module beside the docs folder; the docs folder holds a `router/` folder already, so
    the module's pages take the next free name."""
    module, _ = _module(tmp_path / "router")
    docs = tmp_path / "docs"
    (docs / "router").mkdir(parents=True)
    (docs / "router" / "index.md").write_text("# Routers\n\nHow routing works.\n")
    out = tmp_path / "idx"
    _build(docs, out, "--api-source", module)
    assert set(page_texts(out)) == {
        "router/index.md",
        "router-2/doc.go",
        "router-2/middleware/logger.go",
        "router-2/site/content/example/main.go",  # (a command of the module, as pkg.go.dev)
    }


def test_a_source_root_is_no_api_source(tmp_path: Path) -> None:
    """`--source-root` lets pages include files of the folder; it makes no pages of them."""
    module, docs = _module(tmp_path / "router")
    out = tmp_path / "idx"
    _build(docs, out, "--source-root", module)
    assert set(page_texts(out)) == {"guide.md"}
