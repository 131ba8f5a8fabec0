"""MDX partials (sources/inclusion/mdx_partials.py): a markdown file a page imports as a
component is inlined where the component's tag stands, as Docusaurus, Mintlify and Astro sites
render it, and is no page of its own. Before, the page showed nothing there (Drizzle's
get-started pages, React Native's environment guide) and the partials were pages the site never
serves."""

from __future__ import annotations

import pyarrow.parquet as pq
from conftest import build_bundle, run_docsmcp, write_tree
from docsmcp.sources.inclusion.includes import expand
from docsmcp_runtime.bundle.reader import open_bundle


def _pages(bundle) -> set[str]:
    return set(pq.read_table(bundle / "pages.parquet", columns=["path"])["path"].to_pylist())


def _page_text(bundle, path: str) -> str:
    b = open_bundle(bundle)
    return "\n".join(b.text(r) for r in range(b.n_chunks) if b.id(r).startswith(path + "#"))


def test_partials_of_docusaurus_mintlify_and_astro_sites_are_inlined(tmp_path) -> None:
    site = write_tree(
        tmp_path / "site",
        {
            "docusaurus.config.js": "module.exports = {title: 'Acme'};\n",
            "tsconfig.json": '{\n  // aliases\n  "compilerOptions": {"baseUrl": "./src", '
            '"paths": {"@mdx/*": ["mdx/*"],},},\n}\n',
            "src/mdx/SetupEnv.mdx": "import Code from '@mdx/Code.astro';\n\n"
            "Add `{props.env_variable}` to your `.env` file.\n",
            "unversioned/_sponsors.mdx": "Thanks to our **sponsors**.\n",
            "docs/setup.mdx": "---\ntitle: Setup\n---\n\n"
            "import Install from './\\_install.md';\n"
            "import SetupEnv from '@mdx/SetupEnv.mdx';\n"
            'import Sponsors from "@site/unversioned/_sponsors.mdx";\n'
            'import Note from "/snippets/note.mdx";\n'
            "import { Content as Listen } from './_sections/listen.mdx';\n"
            "import Missing from './_missing.mdx';\n\n"
            "# Setup\n\n## Install\n\n<Install />\n\n## Configure\n\n"
            "  <SetupEnv env_variable='DATABASE_URL'/>\n\n<Note/>\n\n<Listen />\n\n"
            "Inline <Install /> stays a tag.\n\n<Missing />\n\n"
            "```mdx\n<Install />\n```\n\n<Sponsors />\n",
            "docs/_install.md": "---\nsidebar_label: hidden\n---\n\nRun `npm i acme`.\n\n"
            "import Tip from './_tip.mdx';\n\n<Tip />\n",
            "docs/_tip.mdx": "Tip: pin the version.\n",
            "docs/_sections/listen.mdx": "Listen with `listen('ready')`.\n",
            "docs/snippets/note.mdx": "Note: works offline.\n",
            "docs/shared.mdx": "# Shared\n\nA page other pages import too.\n",
            "docs/other.mdx": "import Shared from './shared.mdx';\n\n# Other\n\n<Shared />\n",
            # A page several pages inline is template text: found once, as its own page.
            "docs/a.mdx": "import Steps from './steps.mdx';\n\n# A\n\nAlpha.\n\n<Steps />\n",
            "docs/b.mdx": "import Steps from './steps.mdx';\n\n# B\n\nBeta.\n\n<Steps />\n",
            "docs/steps.mdx": "Apply the migrations with `kit migrate`.\n",
        },
    )
    docs = site / "docs"
    out = build_bundle(docs, tmp_path / "idx", "--source-root", site)
    text = _page_text(out, "setup.mdx")
    for shown in (
        "Run `npm i acme`.",  # `./\_install.md`: a JavaScript string, Prettier's escape
        "Tip: pin the version.",  # a partial's own partial
        "Add `DATABASE_URL` to your `.env` file.",  # @mdx/* by tsconfig paths, a prop
        "Thanks to our **sponsors**.",  # @site/: the folder of docusaurus.config.js
        "Note: works offline.",  # /snippets/: the docs folder
        "Listen with `listen('ready')`.",  # Astro's named import of a page's `Content`
    ):
        assert shown in text, shown
    assert text.count("Run `npm i acme`.") == 1  # a tag within a line of text is no partial
    assert "sidebar_label" not in text and "import " not in text
    assert "```mdx\n<Install />\n```" in text  # code is never touched
    # Partials are no pages; a page that is also imported stays one.
    assert _pages(out) == {"setup.mdx", "shared.mdx", "other.mdx", "a.mdx", "b.mdx", "steps.mdx"}
    assert "migrate" not in _page_text(out, "a.mdx") + _page_text(out, "b.mdx")
    assert "Apply the migrations" in _page_text(out, "steps.mdx")
    assert "A page other pages import too." in _page_text(out, "other.mdx")
    # Hits name the page's own lines: an inlined line is its tag's.
    lines = pq.read_table(out / "chunks.parquet", columns=["id", "line_start", "line_end"])
    spans = {r["id"]: (r["line_start"], r["line_end"]) for r in lines.to_pylist()}
    assert spans["setup.mdx#setup/install"] == (12, 16)  # (`# Setup` to the tag)
    # The missing one is left as written and counted with the other includes.
    build = run_docsmcp(
        "build", "--docs-dir", docs, "--out", tmp_path / "idx2", "--source-root", site
    )
    assert (
        "1 includes in 1 page name files that do not exist (first: ./_missing.mdx" in build.stderr
    )
    # init checks its proposal on a copy of the docs folder: the aliases resolve there too.
    init = run_docsmcp("init", "--docs-dir", docs, "--source-root", site, check=False)
    assert "@mdx/SetupEnv.mdx" not in init.stderr and "./_missing.mdx" in init.stderr


def test_a_page_without_partials_is_expanded_to_itself(tmp_path) -> None:
    docs = write_tree(tmp_path / "docs", {"a.mdx": "import X from './x.js';\n\n# A\n\n<X />\n"})
    body = (docs / "a.mdx").read_text()
    expanded = expand(docs, "a.mdx", body, [docs])
    assert (expanded.body, expanded.line_map, expanded.partials) == (body, (), ())


def test_aliases_defined_outside_the_source_roots_are_said_so(tmp_path) -> None:
    """Tauri's `@fragments/cta.mdx` is an alias of its tsconfig.json at the repository root,
    three folders above the docs: the build said the file does not exist (it does), so the
    advice to copy a folder along was wrong; the tsconfig's folder is what reads it."""
    site = write_tree(
        tmp_path / "repo",
        {
            "tsconfig.json": '{"compilerOptions": {"paths": {"@fragments/*": '
            '["src/content/docs/_fragments/*"]}}}\n',
            "src/content/docs/_fragments/cta.mdx": "Run `npm create tauri-app`.\n",
            "src/content/docs/start.mdx": "import Cta from '@fragments/cta.mdx';\n\n# Start\n\n"
            "<Cta />\n",
        },
    )
    docs = site / "src" / "content" / "docs"
    build = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx")
    assert (
        "1 includes in 1 page read files outside the source roots (first: @fragments/cta.mdx, "
        f"from start.mdx); add --source-root {site.resolve()} to include them"
    ) in build.stderr
    rooted = build_bundle(docs, tmp_path / "idx2", "--source-root", site)
    assert "Run `npm create tauri-app`." in _page_text(rooted, "start.mdx")


def test_code_props_show_their_imported_examples_labelled_by_key(tmp_path) -> None:
    """Ionic's component pages show each example through a partial in `static/` holding
    `<Playground code={{ … }} />` over imported `.md` files of one fenced block each; a code
    import (`?raw`, `!!raw-loader!`) is the file's text. A reader sees a tab per framework and
    file: each is inlined at the tag, under its keys; `static/` stays no pages."""
    site = write_tree(
        tmp_path / "site",
        {
            "docusaurus.config.js": "module.exports = {title: 'Kit'};\n",
            "docs/api/toast.md": "---\ntitle: ion-toast\n---\n\n"
            "import Basic from '@site/static/usage/v9/toast/basic/index.md';\n"
            "import Py from '!!raw-loader!./snippets/send.py';\n"
            "import Sh from './snippets/run.sh?raw';\n\n"
            "# ion-toast\n\n## Buttons\n\nA toast with buttons.\n\n<Basic />\n\n"
            "## Sending\n\n<Playground\n  code={{ python: Py, shell: Sh }}\n/>\n\n"
            '## Astro\n\n<Code code={Sh} lang="sh" title="run.sh" />\n\n'
            "## Left as written\n\n<Playground code={{ javascript: notImported }} />\n\n"
            "Done.\n",
            # The same example on a second page: an example is shown wherever it stands.
            "docs/api/tab-bar.md": "import Basic from '@site/static/usage/v9/toast/basic/index.md';"
            "\n\n# ion-tab-bar\n\nA toast above the tab bar.\n\n<Basic />\n",
            "docs/api/snippets/send.py": "def send(message: str) -> None:\n    print(message)\n",
            "docs/api/snippets/run.sh": "kit send hello\n",
            "static/usage/v9/toast/basic/index.md": "import Playground from "
            "'@site/src/components/global/Playground';\n\n"
            "import javascript from './javascript.md';\n"
            "import react from './react.md';\n"
            "import angular_html from './angular/example_component_html.md';\n\n"
            '<Playground\n  version="9"\n  code={{\n    javascript,\n    react,\n'
            "    angular: {\n      files: {\n"
            "        'src/app/example.component.html': angular_html,\n      },\n"
            "      dependencies: { '@kit/core': '^3.0.0' },\n    },\n  }}\n"
            '  src="usage/v9/toast/basic/demo.html"\n/>\n',
            "static/usage/v9/toast/basic/javascript.md": "```html\n"
            '<kit-toast message="Hello from JavaScript"></kit-toast>\n```\n',
            "static/usage/v9/toast/basic/react.md": "```tsx\n"
            "import { KitToast } from '@kit/react';\n\n"
            'export const Example = () => <KitToast message="Hello from React" />;\n```\n',
            "static/usage/v9/toast/basic/angular/example_component_html.md": "```html\n"
            '<kit-toast [message]="helloFromAngular"></kit-toast>\n```\n',
        },
    )
    out = build_bundle(site, tmp_path / "idx")
    text = _page_text(out, "docs/api/toast.md")
    for shown in (
        'javascript\n\n```html\n<kit-toast message="Hello from JavaScript"></kit-toast>\n```',
        "react\n\n```tsx\nimport { KitToast } from '@kit/react';",  # code keeps its imports
        "angular: src/app/example.component.html\n\n```html\n"
        '<kit-toast [message]="helloFromAngular"></kit-toast>',
        "python\n\n```python\ndef send(message: str) -> None:\n    print(message)\n```",
        "shell\n\n```bash\nkit send hello\n```",
        "run.sh\n\n```sh\nkit send hello\n```",  # Astro's `<Code>`: its title and lang
    ):
        assert shown in text, shown
    assert "@kit/core" not in text and "demo.html" not in text
    assert "Done." in text and "notImported" not in text
    assert _pages(out) == {"docs/api/toast.md", "docs/api/tab-bar.md"}  # static/: no pages
    assert "Hello from JavaScript" in _page_text(out, "docs/api/tab-bar.md")


def test_fragments_an_rspress_site_never_routes_show_where_imported(tmp_path) -> None:
    """Rspress routes no file its `route.exclude` globs or `_` names (`excludeConvention`):
    such a fragment, imported by two pages, is no page and both show its text. Before, it was
    a page of its own the site never serves, and its importers' section was empty (Rspress'
    docs: "Routing convention" in two pages). A routed page others import stays a page."""
    site = write_tree(
        tmp_path / "website",
        {
            "rspress.config.ts": "import { defineConfig } from '@rspress/core';\n\n"
            "export default defineConfig({\n  root: path.join(__dirname, 'docs'),\n"
            "  route: {\n    cleanUrls: true,\n    exclude: ['**/fragments/**'],\n  },\n"
            "  themeConfig: { footer: { message: 'x' } },\n});\n",
            "docs/en/fragments/route-convention.mdx": "Name files after their routes.\n",
            "docs/en/guide/_button.mdx": "Press **Save** to keep it.\n",
            "docs/en/guide/shared.mdx": "# Shared\n\nRouted text others import.\n",
            "docs/en/guide/routes.mdx": "import Convention from "
            "'../fragments/route-convention.mdx';\nimport Button from './_button.mdx';\n"
            "import Shared from './shared.mdx';\n\n# Routes\n\n## Routing convention\n\n"
            "<Convention />\n\n<Button />\n\n<Shared />\n",
            "docs/en/guide/components.mdx": "import Convention from "
            "'../fragments/route-convention.mdx';\nimport Button from './_button.mdx';\n"
            "import Shared from './shared.mdx';\n\n# Components\n\n## Routing convention\n\n"
            "<Convention />\n\n<Button />\n\n<Shared />\n",
        },
    )
    out = build_bundle(site, tmp_path / "idx")
    assert _pages(out) == {
        "docs/en/guide/routes.mdx",
        "docs/en/guide/components.mdx",
        "docs/en/guide/shared.mdx",
    }
    for page in ("docs/en/guide/routes.mdx", "docs/en/guide/components.mdx"):
        text = _page_text(out, page)
        assert "Name files after their routes." in text
        assert "Press **Save** to keep it." in text
        assert "Routed text others import." not in text  # (found once, on its own page)
