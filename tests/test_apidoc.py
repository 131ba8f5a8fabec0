"""mkdocstrings pages (`::: pkg.module`) rendered from Python source with ast (apidoc.py), on
the real pydantic extract; the user's code is parsed, never imported."""

from __future__ import annotations

from pathlib import Path

from conftest import build_bundle, run_docsmcp
from docsmcp.sources.formats.apidoc import Sources, directive, render
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_client import McpSession

PYDANTIC = Path(__file__).parent / "fixtures" / "pydantic-docs"


def _texts(bundle: Path) -> dict[str, str]:
    b = open_bundle(bundle)
    return {b.id(r): b.text(r) for r in range(b.n_chunks)}


def test_mkdocstrings_page_is_rendered_from_the_source(tmp_path: Path) -> None:
    out = build_bundle(PYDANTIC / "docs", tmp_path / "idx", "--api-source", PYDANTIC)
    api = {k: v for k, v in _texts(out).items() if k.startswith("api/networks.md")}
    text = "\n".join(api.values())
    assert ":::" not in text and "options:" not in text
    assert "## `pydantic.networks`" in text
    assert "### `pydantic.networks.EmailStr`" in text and "class EmailStr" in text
    assert "def validate_email(value: str) -> tuple[str, str]" in text
    with McpSession(out) as s:
        hits = s.search(query="validate a name and email address", limit=3)["hits"]
        entries = s.call("get_api_reference", {"method": "validate_email"})
    assert hits[0]["chunk_id"].startswith("api/networks.md#")
    assert not entries.is_error and "validate_email" in entries.content[0].text


def test_lazily_imported_objects_are_followed(tmp_path: Path) -> None:
    """`::: pydantic.BaseModel`: pydantic's __init__ imports it on first use, through its
    `_dynamic_imports` table (PEP 562 `__getattr__`); the page renders it from main.py."""
    out = build_bundle(PYDANTIC / "docs", tmp_path / "idx", "--api-source", PYDANTIC)
    page = {k: v for k, v in _texts(out).items() if k.startswith("api/base_model.md")}
    text = "\n".join(page.values())
    assert ":::" not in text and "members:" not in text
    assert (
        "## `pydantic.BaseModel`" in text and "A base class for creating Pydantic models." in text
    )
    assert "def model_dump(self, *," in text
    assert "## `pydantic.create_model`" in text
    with McpSession(out) as s:
        hits = s.search(query="BaseModel model_dump_json", limit=3)["hits"]
    assert any(h["chunk_id"].startswith("api/base_model.md#") for h in hits), hits


def test_without_its_source_the_page_says_so_and_the_build_warns_once(tmp_path: Path) -> None:
    proc = run_docsmcp("build", "--docs-dir", PYDANTIC / "docs", "--out", tmp_path / "idx")
    warnings = [x for x in proc.stderr.splitlines() if "warning" in x]
    # one line per generated page
    assert len(warnings) == 2, proc.stderr
    assert "api/base_model.md" in warnings[0] and "api/networks.md" in warnings[1]
    assert all("mkdocstrings" in w and "--api-source" in w for w in warnings)
    texts = _texts(tmp_path / "idx")
    (text,) = [v for k, v in texts.items() if k.startswith("api/networks.md")]
    assert (
        text == "API reference of `pydantic.networks` (generated from its source by mkdocstrings)."
    )


def test_reexports_are_followed_and_nothing_is_imported(tmp_path: Path) -> None:
    pkg = tmp_path / "src" / "acme"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        'raise SystemExit("imported!")\nfrom .client import Client as Client\n'
    )
    (pkg / "client.py").write_text(
        'raise SystemExit("imported!")\n\n'
        "class Client(Base, metaclass=Meta):\n"
        '    """Talks to Acme.\n\n    !!! tip\n        Reuse one client.\n    """\n\n'
        "    def __init__(self, key: str, *, retries: int = 3) -> None:\n"
        '        """Make a client."""\n\n'
        "    async def pay(self, amount: int) -> Payment:\n"
        '        """Charge `amount` cents."""\n\n'
        "    def _private(self): ...\n"
    )
    lines = render("acme.Client", Sources(tmp_path, [tmp_path.resolve()]))
    assert lines is not None
    text = "\n".join(lines)
    assert text.startswith("## `acme.Client`\n\n```python\nclass Client(Base, metaclass=Meta)\n```")
    assert (
        "### `acme.Client.__init__`" in text
        and "def __init__(self, key: str, *, retries: int=3) -> None" in text
    )
    assert (
        "async def pay(self, amount: int) -> Payment" in text and "Charge `amount` cents." in text
    )
    assert "_private" not in text
    assert render("acme.Missing", Sources(tmp_path, [tmp_path.resolve()])) is None


def test_directive_lines() -> None:
    assert directive("::: pydantic.networks") == "pydantic.networks"
    assert directive("::: pkg") == "pkg"
    assert directive("::: note") is None and directive(":::tip") is None
    assert directive("::: a.b extra") is None


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300))
def test_any_source_text_renders_or_is_skipped(source: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "m.py").write_text(source, encoding="utf-8", errors="surrogatepass")
        for name in ("m", "m.x", "m.x.y"):
            out = render(name, Sources(root, [root.resolve()]))
            assert out is None or all(isinstance(x, str) for x in out)
