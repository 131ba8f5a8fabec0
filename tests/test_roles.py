"""Page roles (bundle-spec.md, *Page roles*; issue 27): the builder gives every page a role
(sources/roles.py), stored as the built-in taxonomy key `role`; the runtime ranks changelogs,
blog posts, proposals and generated pages lower unless the query asks for them
(search/roles.py), and a `role` filter selects. On real corpus paths and real bundles."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import build_bundle, corpus, run_docsmcp, write_tree
from docsmcp.sources.corpus import load_corpus
from docsmcp.sources.roles import classify
from docsmcp.sources.settings import load_file
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.search.engine import Searcher
from docsmcp_runtime.search.explain import explain
from docsmcp_runtime.search.roles import PRIOR, ROLES, weights
from mcp_client import McpSession

ALLOWED = "use one of: reference, guide, concept, changelog, blog, proposal, generated, index"


def _role(root: Path, path: str) -> str:
    source, problems = load_file(root, path, None)
    assert source is not None and not problems, problems
    return dict(source.metadata)["role"]


# -- the classifier ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "title", "role"),
    [
        # The shapes of real sites (paths as they are in those repositories).
        ("release-notes.md", "Release Notes", "changelog"),  # FastAPI
        ("CHANGELOG.md", None, "changelog"),
        ("dub-ts/RELEASES.md", None, "changelog"),  # Speakeasy SDKs
        ("mistral-ts/MIGRATION.md", None, "changelog"),
        ("whatsnew/3.12.rst", "What's New In Python 3.12", "changelog"),  # CPython
        ("guide/migration.md", "Migration from v7", "changelog"),  # Vite
        ("changes/hotupdate-hook.md", "HMR hotUpdate Plugin Hook", "changelog"),
        ("history-design-future.md", "History, Design and Future", "reference"),
        ("announce/release-2.6.0.rst", "pytest-2.6.0: shorter tracebacks", "changelog"),
        # Drizzle: one release's notes, in a folder of them
        ("latest-releases/drizzle-orm-v0283.mdx", "DrizzleORM v0.28.3 release", "changelog"),
        ("past-releases/notes.md", "Notes", "changelog"),
        ("guide/x.md", "Vite 5.1 release", "changelog"),
        ("guide/cycle.md", "Python 3.12 release cycle", "guide"),  # about a release, not its notes
        ("docs/release-v1_2.md", None, "changelog"),
        ("announce/sprint2016.rst", "python testing sprint June 20th-26th 2016", "blog"),
        ("guide/release-process.md", "Releasing", "guide"),  # no version: about releasing
        ("blog/announcing-vite5.md", "Vite 5.0 is out!", "blog"),
        # Django REST framework: a release's announcement, and one that is not a release's
        ("community/3.8-announcement.md", "Django REST framework 3.8", "changelog"),
        ("community/kickstarter-announcement.md", "Kickstarting Django REST framework 3", "blog"),
        ("news/announcing-v2.md", "Announcing v2", "blog"),
        ("api/announcements-api.md", "Announcements API", "reference"),
        ("blog/2021-08-26-welcome/index.md", "Welcome", "blog"),  # Docusaurus
        ("rfcs/text/0001-private-fields.md", None, "proposal"),  # Rust RFCs
        ("peps/pep-0008.rst", "PEP 8 – Style Guide for Python Code", "proposal"),
        ("data-loaders/rfc.md", "Data Loaders", "proposal"),  # Vue Router's 2022 RFC
        ("docs/adr/0003-use-postgres.md", None, "proposal"),
        ("development/roadmap.mdx", "Roadmap", "proposal"),  # MCP: what is planned
        ("about/plans.md", "Product roadmap", "proposal"),
        ("guide/roadmap-tips.md", "Tips for roadmaps", "guide"),  # about roadmaps, not one
        ("dub-go/docs/models/components/link.md", "Link", "generated"),
        ("dub-php/docs/Models/Operations/GetLinksCountRequest.md", None, "generated"),
        ("mistral-python/packages/gcp/docs/errors/httpvalidationerror.md", None, "generated"),
        ("learn/core-concepts/session-keys.mdx", "Session Keys", "concept"),
        ("docs/learn/architecture.mdx", "Architecture overview", "concept"),
        ("tutorial/dependencies/dependencies-with-yield.md", None, "guide"),
        ("how-to/custom-docs-ui-assets.md", None, "guide"),
        ("quickstart.mdx", "Quickstart", "guide"),
        ("dub-ts/docs/sdks/links/README.md", "Links", "reference"),
        ("src/items/functions.md", "Functions", "reference"),
        ("R-exts.pdf", "Writing R Extensions", "reference"),
        # Ordering prefixes (Nuxt Content) are not part of the name the rules read.
        ("docs/7.migration/4.meta.md", "Meta Tags", "changelog"),
        ("docs/1.getting-started/02.installation.md", "Installation", "guide"),
        ("docs/3.guide/1.concepts/3.auto-imports.md", "Auto-imports", "concept"),
        ("docs/updating/9-0.md", "Updating to v9", "changelog"),  # Ionic
        ("api/update.md", "Update a record", "reference"),  # no version: no upgrade guide
        # A version's guide named for it (Svelte), or titled a migration/upgrade guide.
        ("07-misc/07-v5-migration-guide.md", "Svelte 5 migration guide", "changelog"),
        ("docs/v4-migration-guide.md", None, "changelog"),
        ("guide/3.0-upgrade.md", None, "changelog"),
        ("guide/next.md", "Vue 3 Migration Guide", "changelog"),
        # NumPy: one release's notes, named for its version.
        ("release/1.19.0-notes.rst", None, "changelog"),
        # A move from another tool or language is a guide, not a version's change (TypeScript's
        # handbook, Polars' `migration/` folder); from an older version it is a change.
        ("tutorials/Migrating from JavaScript.md", "Migrating from JavaScript", "guide"),
        ("user-guide/migration/pandas.md", "Coming from Pandas", "reference"),
        ("guide/migrating-from-create-react-app.md", None, "guide"),
        ("guides/migrating-from-v4.md", "Migrating from v4", "changelog"),
        ("usage/migrating-to-modern-redux.mdx", "Migrating to Modern Redux", "changelog"),
        ("guide/migrate-to-v5.md", "Migrate to v5", "changelog"),
        # Named for upgrading, titled for something else: a command, an option group.
        ("4.api/4.commands/upgrade.md", "nuxt upgrade", "reference"),
        ("architecture/upgrade-options.rst", "Options that control the installation", "concept"),
        ("upgrade.md", "Upgrading from 2.x", "changelog"),
        ("docs/upgrade.md", None, "changelog"),
        # Migrations of a database are no version's.
        ("topics/migrations.txt", "Migrations", "concept"),
        ("howto/data-migration.md", "Write a data migration", "guide"),
    ],
)
def test_roles_from_paths_and_titles(path: str, title: str | None, role: str) -> None:
    assert classify(path, title, {}, "Some text.\n") == role


def test_roles_from_frontmatter_and_structure() -> None:
    dated = {"date": "2024-05-01", "authors": ["ada"]}
    assert classify("posts-2024/launch.md", "Launch", dated, "Text.\n") == "blog"
    assert classify("x.md", None, {}, "# SEP-1686: Tasks\n\nText.\n") == "proposal"
    assert classify("x.md", None, {}, "# Changelog\n\n## 1.0\n") == "changelog"
    steps = "# Set up\n\n<Steps>\n<Step title='a'>Do it.</Step>\n</Steps>\n"
    assert classify("setup-thing.mdx", None, {}, steps) == "guide"
    numbered = "# Deploy\n\n## Step 1: build\n\nx\n\n## Step 2: ship\n\ny\n\n## Step 3: check\n"
    assert classify("deploy.md", None, {}, numbered) == "guide"
    generated = "<!-- Code generated by typedoc. DO NOT EDIT. -->\n# Foo\n"
    assert classify("api/foo.md", None, {}, generated) == "generated"
    # tfplugindocs marks only a Terraform resource page's schema lists as generated: the page
    # is the resource's reference.
    schema = "# random_id (Resource)\n\nText.\n\n<!-- schema generated by tfplugindocs -->\n"
    assert classify("docs/resources/id.md", None, {}, schema + "## Schema\n") == "reference"
    landing = "# Guides\n\n- [Install](install.md)\n- [Configure](configure.md)\n- [Deploy](d.md)\n"
    assert classify("guides/index.md", None, {}, landing) == "index"
    # A README that links every operation but shows code is an SDK's reference, not a landing.
    readme = landing + "\n```python\nclient.links.create()\n```\n"
    assert classify("sdk/README.md", None, {}, readme) == "reference"
    # An ORM's guides to its models are no generated type pages (Sequelize's docs/models/);
    # Speakeasy's pages of a type's fields are.
    guide = "# Defining models\n\n" + "Models are the essence of Sequelize. " * 40
    assert classify("docs/models/defining-models.mdx", None, {}, guide) == "reference"
    fields = "# Link\n\n" + "A link. " * 200 + "\n\n## Fields\n\n| Field | Type |\n"
    assert classify("dub-go/docs/models/components/link.md", None, {}, fields) == "generated"
    # A bare RELEASES/NEWS/HISTORY/CHANGES name is a changelog unless its title says otherwise.
    policy = "# Sequelize Versioning Policy\n\n## PostgreSQL Support Table\n"
    assert classify("src/pages/releases.mdx", None, {}, policy) == "reference"
    assert classify("CHANGES.md", None, {}, "# 1.2.0\n\n- Fixed.\n") == "changelog"
    assert classify("HISTORY.rst", None, {}, "Release History\n===============\n") == "changelog"
    # ... or that it is about releases as a thing to build (Phoenix's `releases.md`)
    deploy = "# Deploying with Releases\n\nPackage your app with `mix release`.\n"
    assert classify("guides/deployment/releases.md", None, {}, deploy) == "guide"
    listed = "# Project releases\n\n## v1.7.0\n\n- Fixed.\n"
    assert classify("RELEASES.md", None, {}, listed) == "changelog"
    assert classify("NEWS.md", None, {}, "# News\n\nWe moved.\n") == "changelog"
    # A reST page's title is the text over its first adornment line (NumPy's release notes).
    notes = ".. currentmodule:: numpy\n\n===========\nNumPy 1.19.0 Release Notes\n====\n\nText.\n"
    assert classify("release/numpy-1.19.rst", None, {}, notes) == "changelog"
    assert classify("user/basics.rst", None, {}, "******\nBasics\n******\n\nText.\n") != "changelog"
    # A folder's index page with its own prose is content (mcp-docs' basic/index.mdx).
    prose = "# Overview\n\nThe base protocol: requests, responses, notifications.\n" * 4
    assert classify("basic/index.mdx", None, {}, prose) == "reference"


def test_kubernetes_content_type_is_the_role() -> None:
    # The Kubernetes website declares each page's type (its layout): a task is a guide and a
    # concept a concept whatever the folder or title says; other values are no role.
    task = "Drain a node before maintenance.\n\n## Before you begin\n\nText.\n"
    assert classify("tasks/x/safely-drain.md", "Drain", {"content_type": "task"}, task) == "guide"
    seen = {"content_type": "concept "}
    assert classify("reference/node/labels.md", "Node labels", seen, task) == "concept"
    tutorial = {"content_type": "tutorial"}
    assert classify("concepts/windows/user-guide.md", "Windows", tutorial, task) == "guide"
    assert classify("x/y.md", "Pods", {"content_type": "feature_gate"}, task) == "reference"
    # A declared task that upgrades a cluster is still an upgrade guide, and a generated page
    # still generated: the more specific rules come first.
    upgrade = {"content_type": "task"}
    assert classify("tasks/cluster-upgrade.md", "Upgrade A Cluster", upgrade, task) == "changelog"


def test_fixture_corpus_roles(tmp_path: Path) -> None:
    docs = write_tree(
        tmp_path / "docs",
        {
            "CHANGELOG.md": "# Changelog\n\n## 2.0\n\nRetries now back off.\n",
            "guides/retries.md": "# Retries\n\nHow to retry.\n",
            "notes/v2.md": "# Version 2\n\nWhat moved.\n",
        },
    )
    loaded = {f.path: dict(f.metadata)["role"] for f in load_corpus(docs).files}
    assert loaded == {
        "CHANGELOG.md": "changelog",
        "guides/retries.md": "guide",
        "notes/v2.md": "reference",
    }


# -- overrides and hostile values --------------------------------------------------------------


def test_manifest_and_frontmatter_set_the_role(tmp_path: Path) -> None:
    docs = write_tree(
        tmp_path / "docs",
        {
            ".docs-mcp.json": json.dumps(
                {
                    "version": "1",
                    "overrides": [{"pattern": "notes/**", "metadata": {"role": "Changelog"}}],
                    "taxonomy": {"role": {"description": "What kind of page it is."}},
                }
            ),
            "notes/v2.md": "# Version 2\n\nWhat moved.\n",
            # The frontmatter wins over the override, as for any metadata key.
            "notes/post.md": "---\nmetadata:\n  role: blog\n---\n# Launch\n",
            "CHANGELOG.md": "---\nmcp_metadata: {role: reference}\n---\n# Changelog\n",
        },
    )
    loaded = load_corpus(docs)
    assert loaded.problems == ()
    roles = {f.path: dict(f.metadata)["role"] for f in loaded.files}
    # Values are compared case-insensitively and stored as the vocabulary spells them.
    assert roles == {
        "notes/v2.md": "changelog",
        "notes/post.md": "blog",
        "CHANGELOG.md": "reference",
    }
    bundle = build_bundle(docs, tmp_path / "idx")
    taxonomy = json.loads((bundle / "metadata.json").read_text())["taxonomy"]
    # A manifest may describe the built-in key; its values stay the vocabulary.
    assert taxonomy["role"]["description"] == "What kind of page it is."
    assert taxonomy["role"]["values"] == ["blog", "changelog", "reference"]


@pytest.mark.parametrize(
    "value", ["admin", "changelogs", "<script>alert(1)</script>", "guide\u200b"]
)
def test_unknown_role_values_are_refused_with_the_vocabulary(tmp_path: Path, value: str) -> None:
    docs = write_tree(
        tmp_path / "docs",
        {
            ".docs-mcp.json": json.dumps(
                {"version": "1", "overrides": [{"pattern": "a.md", "metadata": {"role": value}}]}
            ),
            "a.md": "# A\n",
            "b.md": f"---\nmetadata:\n  role: {json.dumps(value)}\n---\n# B\n",
        },
    )
    problems = [str(p) for p in load_corpus(docs).problems]
    shown = repr(value.strip())
    assert problems == [
        f".docs-mcp.json: $.overrides[0].metadata.role: role {shown} is not a page role; {ALLOWED}",
        f"b.md:3: role {shown} is not a page role; {ALLOWED}",
    ]
    result = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", check=False)
    assert result.returncode != 0
    assert f"role {shown} is not a page role; {ALLOWED}" in result.stderr


# -- the prior and the query ------------------------------------------------------------------


def test_weights_yield_to_the_query() -> None:
    assert set(PRIOR) == set(ROLES)
    plain = weights("dependency with yield cleanup")
    assert plain == PRIOR
    assert plain["changelog"] < 1 and plain["guide"] == plain["reference"] == 1
    for query in ("what changed in 2025-06-18", "release notes", "what's new", "new in 3.12",
                  "breaking changes", "changelog", "what's changed", "changes since v1",
                  "jest 30 changes"):  # fmt: skip
        assert weights(query)["changelog"] > 1, query
    # "changed" naming a thing, not asking what changed: listChanged, a changed resource.
    for query in ("tools list changed notification", "what happens when a resource changed",
                  "a new in-memory store"):  # fmt: skip
        assert weights(query) == PRIOR, query
    for query in ("deprecated features", "migrate to v2", "upgrade guide", "FastAPI 0.100"):
        assert weights(query)["changelog"] == 1, query
    assert weights("Vite 5 announcement")["blog"] > 1
    assert weights("blog post about signals")["blog"] > 1
    # "post" alone is HTTP's POST or Jekyll's posts: no lift (Jekyll's release notes
    # outranked its docs for "collections vs posts")
    for query in ("POST request body", "keep a post unpublished", "collections vs posts"):
        assert weights(query)["blog"] == PRIOR["blog"], query
    assert weights("what's new in Vite 5")["blog"] == 1
    for query in ("SEP-1686", "the RFC for tasks", "proposal for stateless MCP", "PEP 8",
                  "is streaming planned", "roadmap for transports"):  # fmt: skip
        assert weights(query)["proposal"] > 1, query
    # A query naming code asks for the type's page too.
    assert weights("CreateLinkRequestBody")["generated"] == 1
    assert weights("create a short link")["generated"] < 1


@pytest.fixture(scope="module")
def fixture_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("roles")
    docs = write_tree(
        root / "docs",
        {
            # The changelog and the blog post name the words more often than the guide does.
            "CHANGELOG.md": (
                "# Changelog\n\n## 2.0: retry backoff\n\n"
                "Retry backoff is now exponential, with retry backoff jitter.\n"
            ),
            "guides/retries.md": (
                "# Retries\n\n## Backing off\n\nSet the retry backoff: calls that fail with "
                "a timeout are sent again after a delay that doubles each time.\n"
            ),
            "blog/launch.md": "# Launching retry backoff\n\nRetry backoff retry backoff.\n",
        },
    )
    return build_bundle(docs, root / "idx")


def test_prior_and_lift_through_search_docs(fixture_bundle: Path) -> None:
    with McpSession(fixture_bundle) as s:
        plain = s.search(query="retry backoff")["hits"]
        changes = s.search(query="what changed in retry backoff")["hits"]
        only = s.search(query="retry backoff", role="changelog")["hits"]
        blog = s.search(query="retry backoff blog post")["hits"]
        error = s.tool_error("search_docs", {"query": "retry", "role": "admin"})
    assert plain[0]["filepath"] == "guides/retries.md"
    assert plain[0]["metadata"] == {"role": "guide"}
    # Without the prior (a filter applies none) the changelog outscores the guide.
    assert only and all(h["metadata"]["role"] == "changelog" for h in only)
    assert only[0]["score"] > plain[0]["score"]
    assert changes[0]["filepath"] == "CHANGELOG.md"
    assert blog[0]["filepath"] == "blog/launch.md"
    assert error == (
        "Invalid taxonomy value for 'role': \"admin\". Allowed values: blog, changelog, guide"
    )


def test_explain_shows_the_role_weight(fixture_bundle: Path) -> None:
    """Why the guide outranks a changelog that says the words more often: its weight."""
    bundle = open_bundle(fixture_bundle)
    searcher = Searcher(bundle)
    rows = {bundle.chunk_ids()[r].partition("#")[0]: r for r in range(bundle.n_chunks)}
    log, guide = rows["CHANGELOG.md"], rows["guides/retries.md"]
    parts = explain(searcher, "retry backoff", {}, [log, guide])
    assert parts[0]["role"] == {"role": "changelog", "weight": PRIOR["changelog"]}
    assert "role" not in parts[1]  # a guide weighs 1
    (lifted,) = explain(searcher, "what changed in retry backoff", {}, [log])
    assert lifted["role"]["weight"] > 1
    (filtered,) = explain(searcher, "retry backoff", {"role": "changelog"}, [log])
    assert "role" not in filtered  # a filter selects, no weight applies


# -- real corpora ------------------------------------------------------------------------------


def test_a_question_about_changes_searches_its_topic_not_its_change_words(tmp_path: Path) -> None:
    """ "what changed in acme 3": the words asking what changed lift changelogs and are not
    searched, so an old changelog entry that says "Changed acme's …" no longer outranks the
    release the query names (Jest: CHANGELOG_PRE_v30.md's 14.1.0 for "what changed in jest
    30"); explain shows the same terms as the search."""
    old = "## acme 1.4\n\n- Changed acme's default cache directory.\n\n" + "".join(
        f"## acme 1.{i}\n\n- Fixed the reporter for {i} workers.\n\n" for i in (0, 1, 2, 5, 6)
    )
    pages = {
        "CHANGELOG_OLD.md": f"# Changelog\n\n{old}",
        "blog/acme-3.md": "# acme 3 is out\n\nacme 3 brings faster runs and a new API.\n",
    }
    for i in range(20):  # `acme` and `3` are common words; their bigram is not
        pages[f"topic{i}.md"] = f"# Topic {i}\n\nWith acme run 3 workers; acme checks them.\n"
    bundle = open_bundle(build_bundle(write_tree(tmp_path / "docs", pages), tmp_path / "idx"))
    searcher = Searcher(bundle)
    ids = bundle.chunk_ids()
    page = searcher.search("what changed in acme 3", {}, 0, 3)
    assert ids[page.rows[0]].startswith("blog/acme-3.md"), [ids[r] for r in page.rows]
    (why,) = explain(searcher, "what changed in acme 3", {}, page.rows[:1])
    assert "changed" not in why["terms"] and "changed" not in why.get("missing_terms", [])
    assert searcher.searched("what changed in acme 3", {})[0] == ["acme", "3"]
    # A `changed` that names a thing is searched: no question about changes.
    assert "changed" in searcher.searched("tools list changed notification", {})[0]
    # Nor are the words left out where no changelog can answer (no page has that role).
    docs = write_tree(tmp_path / "plain", {"guide.md": "# Guide\n\nWhat changed in acme 3.\n"})
    plain = Searcher(open_bundle(build_bundle(docs, tmp_path / "plain-idx")))
    assert "changed" in plain.searched("what changed in acme 3", {})[0]


@pytest.mark.corpus
def test_real_corpus_pages_get_their_roles() -> None:
    mcp, speakeasy = corpus("mcp-docs"), corpus("speakeasy-sdks")
    assert _role(mcp, "seps/2322-MRTR.mdx") == "proposal"
    assert _role(mcp, "seps/index.mdx") == "index"
    assert _role(mcp, "development/roadmap.mdx") == "proposal"
    assert _role(mcp, "specification/2025-06-18/changelog.mdx") == "changelog"  # "Key Changes"
    assert _role(mcp, "specification/2026-07-28/deprecated.mdx") == "reference"
    assert _role(mcp, "specification/2026-07-28/basic/index.mdx") == "reference"
    assert _role(mcp, "docs/2026-07-28/learn/architecture.mdx") == "concept"
    assert _role(mcp, "docs/2026-07-28/develop/build-server.mdx") == "guide"
    assert _role(speakeasy, "dub-ts/docs/models/operations/createlinkrequestbody.md") == "generated"
    assert _role(speakeasy, "dub-php/docs/Models/Components/LinkSchema.md") == "generated"
    assert _role(speakeasy, "dub-ts/docs/sdks/links/README.md") == "reference"
    assert _role(speakeasy, "dub-python/README.md") == "reference"
    assert _role(speakeasy, "dub-python/RELEASES.md") == "changelog"
    assert _role(corpus("rust-reference"), "src/items/functions.md") == "reference"
    yellow = corpus("yellow-docs")
    assert _role(yellow, "docs/learn/core-concepts/session-keys.mdx") == "concept"
    assert _role(yellow, "docs/guides/migration-guide.md") == "changelog"
    assert _role(yellow, "blog/2019-05-28-first-blog-post.md") == "blog"


@pytest.fixture(scope="module")
def mcp_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """mcp-docs built as a user would: `docsmcp init --write` on a copy, then build."""
    root = tmp_path_factory.mktemp("mcp")
    docs = root / "docs"
    shutil.copytree(corpus("mcp-docs"), docs)
    report = run_docsmcp("init", "--docs-dir", docs, "--write").stdout
    assert "changelogs: 5 files kept" in report
    assert "changelog" not in json.dumps(json.loads((docs / ".docs-mcp.json").read_text()))
    return build_bundle(docs, root / "idx")


@pytest.mark.corpus
def test_mcp_changelog_answers_change_queries_only(mcp_bundle: Path) -> None:
    with McpSession(mcp_bundle) as s:
        changed = s.search(query="what changed in 2025-06-18", limit=3)["hits"]
        # (the release whose changelog brought resource indicators in)
        query, release = "resource indicators access tokens malicious servers", "2025-06-18"
        plain = s.search(query=query, version=release)["hits"]
        only = s.search(query=query, version=release, role="changelog")
        seps = s.search(query="SEP for stateless MCP", limit=3)["hits"]
        listed = s.search(query="tools list changed notification", limit=3)["hits"]
    assert changed[0]["metadata"]["role"] == "changelog"
    assert changed[0]["filepath"].endswith("/changelog.mdx")
    # That release's changelog scores above its security page, yet a plain query ranks the
    # page first: the prior, not a missing match.
    top = only["hits"][0]
    assert top["filepath"] == "specification/2025-06-18/changelog.mdx"
    assert top["score"] > plain[0]["score"]
    assert plain[0]["metadata"]["role"] != "changelog"
    assert all(h["metadata"]["role"] != "changelog" for h in plain[:3])
    assert seps[0]["metadata"]["role"] == "proposal"
    # The notification's sections, not the changelog that mentions it (it ranked first).
    assert all(h["metadata"]["role"] == "reference" for h in listed), listed
    assert "listchanged" in listed[0]["chunk_id"] or "list-changed" in listed[0]["chunk_id"]
