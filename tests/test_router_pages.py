"""Next.js' documentation (sources/sites/router_pages.py): `<AppOnly>` / `<PagesOnly>` parts show on
their router's pages only, and a Pages Router page whose front matter names a `source:` shows that
page's text, read for its router. Before, 89 of Next.js' 326 pages had no text at all and every
App Router page showed the Pages Router's parts too ("API EndpointsRoute Handlers")."""

from __future__ import annotations

import json
import time

from conftest import build_bundle, bundle_differences, page_texts, run_docsmcp, write_tree
from docsmcp.pipeline.known_files import RACY_NS
from docsmcp.sources.sites.router_pages import for_router, route, router

_IMAGE = (
    "---\ntitle: <Image>\ndescription: Optimize images.\n---\n\n"
    "{/* The content of this doc is shared between the app and pages router. You can use the "
    "`<PagesOnly>Content</PagesOnly>` component to add content for the Pages Router. */}\n\n"
    "The `<Image>` component extends the HTML `<img>` element.\n\n"
    "<AppOnly>\n\n## Server usage\n\nRender it in a Server Component.\n\n</AppOnly>\n\n"
    "<PagesOnly>\n\n## getStaticProps usage\n\nPass the URL from `getStaticProps`.\n\n"
    "</PagesOnly>\n\n## CORS\n\nAllow your <PagesOnly>API Endpoints</PagesOnly>"
    "<AppOnly>Route Handlers</AppOnly> to be called.\n\n"
    "```mdx\n<AppOnly>Shown as code</AppOnly>\n```\n"
)
_SHOWN = (
    "---\ntitle: <Image> (Pages)\ndescription: Optimize images in pages.\n"
    "source: app/api-reference/components/image\n---\n\n"
    "{/* DO NOT EDIT. The content of this doc is generated from the source above. */}\n"
)


def test_a_page_shows_its_routers_parts_and_a_source_page_shows_its_source(tmp_path) -> None:
    docs = write_tree(
        tmp_path / "docs",
        {
            "index.mdx": "---\ntitle: Docs\n---\n\nWelcome.\n",
            "02-app/02-api-reference/01-components/image.mdx": _IMAGE,
            "03-pages/02-api-reference/01-components/image.mdx": _SHOWN,
            "03-pages/02-api-reference/01-components/gone.mdx": _SHOWN.replace(
                "components/image", "components/nothing"
            ),
        },
    )
    texts = page_texts(build_bundle(docs, tmp_path / "idx"))
    app = texts["02-app/02-api-reference/01-components/image.mdx"]
    pages = texts["03-pages/02-api-reference/01-components/image.mdx"]
    assert "Server Component" in app and "getStaticProps" not in app
    assert "your Route Handlers to be called" in app and "API Endpoints" not in app
    assert "getStaticProps" in pages and "Server Component" not in pages
    assert "your API Endpoints to be called" in pages and "Route Handlers" not in pages
    assert "extends the HTML" in pages
    for text in (app, pages):  # (a tag shown as code is code)
        assert "<AppOnly>Shown as code</AppOnly>" in text
    # A source naming no page leaves the page as written: no text, no page.
    assert "03-pages/02-api-reference/01-components/gone.mdx" not in texts


def test_built_from_the_repository_root_a_source_page_shows_its_source(tmp_path) -> None:
    """`--docs-dir` the repository, the pages under `docs/`: 89 Pages Router pages had no text
    (the router was read from the first folder, `docs`)."""
    docs = write_tree(
        tmp_path / "next.js",
        {
            "docs/02-app/02-api-reference/01-components/image.mdx": _IMAGE,
            "docs/03-pages/02-api-reference/01-components/image.mdx": _SHOWN,
        },
    )
    texts = page_texts(build_bundle(docs, tmp_path / "idx"))
    pages = texts["docs/03-pages/02-api-reference/01-components/image.mdx"]
    assert "getStaticProps" in pages and "Server Component" not in pages


def test_routers_routes_and_parts() -> None:
    assert router("02-app/01-x/page.mdx") == "app"
    assert router("03-pages/page.mdx") == "pages"
    assert router("05-community/guide.mdx") is None and router("index.mdx") is None
    assert route("02-app/01-building/index.mdx") == "app/building"
    # built from the repository's root: `docs/` above the routers
    assert router("docs/02-app/01-x/page.mdx") == "app"
    assert route("docs/03-pages/01-building/index.mdx") == "pages/building"
    assert router("docs/guides/x.mdx") is None and route("docs/guides/x.mdx") == "docs/guides/x"
    assert route("02-app/02-api-reference/04-functions/revalidatePath.mdx") == (
        "app/api-reference/functions/revalidatePath"
    )
    body = "a <AppOnly>x</AppOnly>\n<PagesOnly>\n\ny\n\n</PagesOnly>\n`<PagesOnly>` z"
    assert for_router(body, "app") == "a <AppOnly>x</AppOnly>\n\n\n\n\n\n`<PagesOnly>` z"
    assert for_router(body, "pages") == "a \n<PagesOnly>\n\ny\n\n</PagesOnly>\n`<PagesOnly>` z"
    assert for_router(body, None) == body
    # An unclosed part runs to the end of the page, its lines kept.
    assert for_router("a\n<PagesOnly>\nb\nc", "app") == "a\n\n\n"


def test_rebuilds_show_what_a_clean_build_shows(tmp_path) -> None:
    """A rebuild takes unchanged files from its record without their text (known_files.py): a
    page another page shows is read again each time, also when the page naming it is new."""
    image = "02-app/02-api-reference/01-components/image.mdx"
    docs = write_tree(tmp_path / "docs", {image: _IMAGE, "02-app/other.mdx": "# Other\n\nText.\n"})
    out = tmp_path / "idx"

    def build() -> dict:
        return json.loads(run_docsmcp("build", "--docs-dir", docs, "--out", out, "--json").stdout)

    build()
    time.sleep(RACY_NS / 1e9 + 0.2)  # files written moments ago are read again: not recorded
    build()
    assert build()["unread_files"] == 2  # both taken from the record, no page names them
    shown = "03-pages/02-api-reference/01-components/image.mdx"
    (docs / shown).parent.mkdir(parents=True)
    (docs / shown).write_text(_SHOWN, encoding="utf-8")
    build()
    assert "getStaticProps" in page_texts(out)[shown]
    assert bundle_differences(out, build_bundle(docs, tmp_path / "clean", "--no-cache")) == []
    time.sleep(RACY_NS / 1e9 + 0.2)
    build()
    assert build()["unread_files"] == 1  # other.mdx: image.mdx is shown by another page
    assert bundle_differences(out, build_bundle(docs, tmp_path / "clean2", "--no-cache")) == []
