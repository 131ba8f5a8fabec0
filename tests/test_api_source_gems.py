"""A Ruby gem, a PHP library, a Dart package and a TypeScript package named with `--api-source`
outside the docs folder are read as the same package inside it (packages/api_sources.py), and
a Swift package's DocC catalog articles with its symbols.

Shapes: Faraday's (a docsify site in `docs/` of the gem, `.yardopts` naming `lib/**/*.rb`),
Monolog's (`doc/` of a library whose composer.json autoloads `src/Monolog`), bloc's (a site in
`docs/` of the repository whose packages are `packages/*`, each with a pubspec.yaml and
`lib/src/` exported by `lib/bloc.dart`), Vapor's (a docs repository beside the package, whose
catalog is `Sources/Vapor/Docs.docc`). Before, each gave 0 API entries from the package."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
from conftest import page_texts, run_docsmcp, write_tree


def _names(out: Path) -> set[str]:
    return set(pq.read_table(out / "api.parquet").column("name").to_pylist())


def _build(docs: Path, out: Path, *extra: str | Path) -> str:
    return run_docsmcp("build", "--docs-dir", docs, "--out", out, *extra).stderr


CONNECTION_RB = """\
# frozen_string_literal: true

module Faraday
  # Connection objects manage the default properties and the middleware
  # stack for fulfilling an HTTP request.
  class Connection
    # Makes a GET HTTP request without a body.
    #
    # @param url [String] the URL to request
    # @return [Faraday::Response]
    def get(url = nil)
    end
  end
end
"""


def test_a_gem_holding_its_docs_site_is_read_as_yard_shows_it(tmp_path: Path) -> None:
    repo = write_tree(
        tmp_path / "faraday",
        {
            "faraday.gemspec": 'Gem::Specification.new do |spec|\n  spec.name = "faraday"\nend\n',
            ".yardopts": "--no-private\n--exclude test\n--markup markdown\n\n"
            "lib/**/*.rb\n-\nCHANGELOG.md\n",
            "lib/faraday.rb": "# Faraday is an HTTP client library.\nmodule Faraday\nend\n",
            "lib/faraday/connection.rb": CONNECTION_RB,
            "spec/faraday/connection_spec.rb": "RSpec.describe Faraday::Connection do\nend\n",
            "Rakefile": "task default: :spec\n",
            "docs/index.md": "# Faraday\n\nAn HTTP client library.\n",
            "docs/usage/index.md": "# Usage\n\nCreate a `Faraday::Connection`.\n",
        },
    )
    out = tmp_path / "idx"
    stderr = _build(repo / "docs", out, "--api-source", repo)
    assert "warning" not in stderr
    texts = page_texts(out)
    # the gem's library files, under the gem's folder name; specs are no pages
    assert set(texts) == {
        "index.md",
        "usage/index.md",
        "faraday/lib/faraday.rb",
        "faraday/lib/faraday/connection.rb",
    }
    assert "Makes a GET HTTP request without a body." in texts["faraday/lib/faraday/connection.rb"]
    assert {"Faraday::Connection", "Faraday::Connection#get"} <= _names(out)


LOGGER_PHP = """\
<?php declare(strict_types=1);

namespace Monolog;

/**
 * Monolog log channel
 *
 * It contains a stack of Handlers and a stack of Processors.
 */
class Logger
{
    /**
     * Adds a log record at the WARNING level.
     *
     * @param string $message The log message
     */
    public function warning(string $message): void
    {
    }
}
"""


def test_a_php_library_holding_its_docs_folder_is_read_as_its_autoload_names(
    tmp_path: Path,
) -> None:
    repo = write_tree(
        tmp_path / "monolog",
        {
            "composer.json": '{"name": "monolog/monolog", "autoload": {"psr-4": '
            '{"Monolog\\\\": "src/Monolog"}}, "autoload-dev": {"psr-4": '
            '{"Monolog\\\\": "tests/Monolog"}}}\n',
            "src/Monolog/Logger.php": LOGGER_PHP,
            "tests/Monolog/LoggerTest.php": "<?php\nnamespace Monolog;\nclass LoggerTest {}\n",
            "doc/01-usage.md": "# Using Monolog\n\nCreate a `Logger`.\n",
        },
    )
    out = tmp_path / "idx"
    stderr = _build(repo / "doc", out, "--api-source", repo)
    assert "warning" not in stderr
    texts = page_texts(out)
    assert set(texts) == {"01-usage.md", "monolog/src/Monolog/Logger.php"}
    assert "Adds a log record at the WARNING level." in texts["monolog/src/Monolog/Logger.php"]
    assert {"Monolog\\Logger", "Monolog\\Logger::warning"} <= _names(out)


BLOC_DART = """\
/// A predictable state management library for Dart.
library bloc;

export 'src/bloc.dart';
"""

BLOC_SRC = """\
/// Takes a stream of events as input and transforms them into a stream of states.
abstract class Bloc<Event, State> {
  /// Notifies the bloc of a new [event].
  void add(Event event) {}
}
"""


def test_a_dart_package_beside_the_docs_site_is_read_as_dartdoc_shows_it(tmp_path: Path) -> None:
    repo = write_tree(
        tmp_path / "bloc",
        {
            "packages/bloc/pubspec.yaml": "name: bloc\nversion: 9.0.0\n",
            "packages/bloc/lib/bloc.dart": BLOC_DART,
            "packages/bloc/lib/src/bloc.dart": BLOC_SRC,
            "packages/bloc/test/bloc_test.dart": "void main() {}\n",
            "docs/src/content/docs/index.md": "# Bloc\n\nA state management library.\n",
        },
    )
    out = tmp_path / "idx"
    stderr = _build(repo / "docs", out, "--api-source", repo / "packages/bloc")
    assert "warning" not in stderr
    texts = page_texts(out)
    # the public library only, with what it exports (lib/src/ is read into it)
    assert set(texts) == {"src/content/docs/index.md", "bloc/lib/bloc.dart"}
    assert "Notifies the bloc of a new" in texts["bloc/lib/bloc.dart"]
    assert any(n.endswith("Bloc.add") for n in _names(out))


SWIFT_PACKAGE = """// swift-tools-version:5.9
import PackageDescription

let package = Package(
  name: "vapor",
  products: [.library(name: "Vapor", targets: ["Vapor"])],
  targets: [.target(name: "Vapor"), .testTarget(name: "VaporTests", dependencies: ["Vapor"])]
)
"""

ROUTES_SWIFT = """\
/// A collection of routes.
public final class Routes {
    /// Adds a route for the given path.
    public func add(_ path: String) {}
}
"""


def test_a_swift_packages_catalog_articles_link_to_its_symbols_from_outside(
    tmp_path: Path,
) -> None:
    """Vapor's shape (docs and package in two repositories), with a catalog in the docs folder
    too: the package's article links ``Routes`` to its page, read in the package's folder, and
    the docs' own DocC pass does not head it again with the docs' tables."""
    package = write_tree(
        tmp_path / "vapor",
        {
            "Package.swift": SWIFT_PACKAGE,
            "Sources/Vapor/Routing/Routes.swift": ROUTES_SWIFT,
            "Sources/Vapor/Docs.docc/Vapor.md": "# ``Vapor``\n\nA web framework.\n\n"
            "## Topics\n\n- ``Routes``\n- <doc:Routing>\n",
            "Sources/Vapor/Docs.docc/Routing.md": "# Routing\n\nRegister with ``Routes``.\n",
        },
    )
    docs = write_tree(
        tmp_path / "docs",
        {
            "index.md": "# Vapor\n\nRoutes are registered.\n",
            "Guides.docc/Routing.md": "# Routing in the guides\n\nSee the package.\n",
        },
    )
    out = tmp_path / "idx"
    stderr = _build(docs, out, "--api-source", package)
    assert "warning" not in stderr
    texts = page_texts(out)
    assert {
        "vapor/Sources/Vapor/Docs.docc/Vapor.md",
        "vapor/Sources/Vapor/Docs.docc/Routing.md",
        "Guides.docc/Routing.md",
    } <= set(texts)
    article = texts["vapor/Sources/Vapor/Docs.docc/Vapor.md"]
    # as built alone: its <doc:> link to its own article, its header read (never shown)
    assert "# Vapor\n\nA web framework." in article  # (headed twice: "# `Vapor`")
    assert "[Routing](Routing.md)" in article
    assert "docsmcp-docc" not in article
    assert "`Routes`" in article
    assert "Register with `Routes`." in texts["vapor/Sources/Vapor/Docs.docc/Routing.md"]


CLIENT_TS = """\
/**
 * API Client for interfacing with the OpenAI API.
 */
export class OpenAI {
  /**
   * Creates a chat completion.
   */
  create(body: string): Promise<string> {
    return Promise.resolve(body);
  }
}
"""


def test_a_typescript_package_holding_its_docs_folder_is_read_as_its_entry_points(
    tmp_path: Path,
) -> None:
    """openai-node's shape: `docs/` of the package, whose package.json names built files and
    whose tsconfig `paths` give its own name to `src/index.ts`; tests are no pages."""
    repo = write_tree(
        tmp_path / "openai-node",
        {
            "package.json": '{"name": "openai", "main": "dist/index.js", '
            '"types": "dist/index.d.ts"}\n',
            "tsconfig.json": '{"include": ["src", "tests"], "compilerOptions": {"paths": '
            '{"openai/*": ["./src/*"], "openai": ["./src/index.ts"]}, "noEmit": true}}\n',
            "src/index.ts": "export { OpenAI } from './client';\n",
            "src/client.ts": CLIENT_TS,
            "tests/client.test.ts": "import { OpenAI } from 'openai';\ntest('x', () => {});\n",
            "docs/streaming.md": "# Streaming\n\nStream a response from `OpenAI`.\n",
        },
    )
    out = tmp_path / "idx"
    stderr = _build(repo / "docs", out, "--api-source", repo)
    assert "warning" not in stderr
    texts = page_texts(out)
    # (index.ts only re-exports: no text of its own, as when the package's folder is built)
    assert set(texts) == {"streaming.md", "openai-node/src/client.ts"}
    assert "Creates a chat completion." in texts["openai-node/src/client.ts"]
    assert any(n.endswith("OpenAI.create") for n in _names(out))


def test_a_folder_holding_no_package_is_named_in_one_warning(tmp_path: Path) -> None:
    """What still is not read: an `--api-source` outside the docs folder with no source of a
    package docsmcp reads (here a folder of shell scripts)."""
    tools = write_tree(tmp_path / "tools", {"install.sh": "#!/bin/sh\necho hi\n"})
    docs = write_tree(tmp_path / "docs", {"index.md": "# Tools\n\nRun install.sh.\n"})
    stderr = _build(docs, tmp_path / "idx", "--api-source", tools)
    assert stderr.count("warning") == 1
    assert f"--api-source {tools}: no package docsmcp reads is in it" in stderr
