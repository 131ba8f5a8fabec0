"""Ruby classes list what they get from the modules they include or extend and from their
superclass, as YARD's "Methods included from" / "Methods inherited from" do, by the rule the
other languages' pages follow: a line per giver of references to its sections, an API entry per
member named as the class's; never a copy. `alias`/`alias_method` names are entries of the
method they name, which says "Also known as" (formats/source/yard_inherit.py,
packages/ruby_inherit.py). Fixtures in the shape of rack/rack (`Rack::Request` includes its
`Helpers`) and lostisland/faraday (`extend MiddlewareRegistry`, `Adapter < Middleware`)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, run_docsmcp, write_tree
from docsmcp.sources.formats.source.yard import ruby_to_markdown
from docsmcp.sources.formats.source.yard_inherit import encode, split
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

GEMSPEC = """Gem::Specification.new do |spec|
  spec.name = 'hoop'
  spec.require_paths = %w[lib]
end
"""

REQUEST = """# frozen_string_literal: true

module Hoop
  # Hoop::Request provides a convenient interface to a Hoop environment.
  class Request
    # The environment of the request.
    attr_reader :env

    module Helpers
      # Checks the HTTP request method (or verb) to see if it was of type GET
      def get?; request_method == "GET" end

      # the referer of the client
      def referer
        get_header('HTTP_REFERER')
      end
      alias referrer referer

      private

      def secret; end
    end

    include Helpers
  end
end
"""

REGISTRY = """# frozen_string_literal: true

module Hoop
  # Adds the ability for other modules to register and lookup middleware classes.
  module MiddlewareRegistry
    # Register middleware class(es) on the current module.
    #
    # @param mappings [Hash] Middleware mappings from a lookup symbol to a class.
    # @return [void]
    def register_middleware(**mappings)
    end
  end

  # Middleware is the basic base class of any Hoop middleware.
  class Middleware
    extend MiddlewareRegistry

    # Closes the app.
    def close; end
  end
end
"""

ADAPTER = """# frozen_string_literal: true

module Hoop
  # Base class for all Hoop adapters.
  class Adapter < Middleware
    # Calls the adapter.
    def call(env); end
  end
end
"""


def _tree(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "hoop",
        {
            "hoop.gemspec": GEMSPEC,
            "lib/hoop/request.rb": REQUEST,
            "lib/hoop/middleware.rb": REGISTRY,
            "lib/hoop/adapter.rb": ADAPTER,
        },
    )


def test_a_class_lists_what_its_modules_and_superclass_give(tmp_path: Path) -> None:
    out = build_bundle(_tree(tmp_path), tmp_path / "idx")
    pages = page_texts(out)
    request = pages["lib/hoop/request.rb"]
    assert "**Included from `Hoop::Request::Helpers`:** `#get?`, `#referer`, `#referrer`" in request
    assert "secret" not in request
    middleware = pages["lib/hoop/middleware.rb"]
    # (an extended module's methods are the class's class methods; the module is on the page)
    assert "**Extended by `Hoop::MiddlewareRegistry`:** `.register_middleware`" in middleware
    adapter = pages["lib/hoop/adapter.rb"]
    assert "**Inherited from `Hoop::Middleware`:** `#close`\n" in adapter
    assert "Closes the app." not in adapter  # (a line of names, never a copy)
    api = ApiRegistry(open_bundle(out))
    (get,) = [api.spec(i) for i in api.lookup("Hoop::Request#get?")]
    assert get["description"].startswith("Checks the HTTP request method")
    (reg,) = [api.spec(i) for i in api.lookup("Hoop::Middleware.register_middleware")]
    assert reg["description"] == "Register middleware class(es) on the current module."
    assert reg["signature"] == "def register_middleware(**mappings)"


def test_an_alias_is_another_name_of_its_method(tmp_path: Path) -> None:
    out = build_bundle(_tree(tmp_path), tmp_path / "idx")
    request = page_texts(out)["lib/hoop/request.rb"]
    assert "**Also known as:** `#referrer`" in request
    assert "Hoop::Request::Helpers#referrer" not in request  # (no section of its own)
    api = ApiRegistry(open_bundle(out))
    (alias,) = [api.spec(i) for i in api.lookup("Hoop::Request::Helpers#referrer")]
    (own,) = [api.spec(i) for i in api.lookup("Hoop::Request::Helpers#referer")]
    assert alias["chunk_id"] == own["chunk_id"] and alias["description"] == own["description"]


def test_the_lines_refer_to_the_givers_sections(tmp_path: Path) -> None:
    built = run_docsmcp("build", "--docs-dir", _tree(tmp_path), "--out", tmp_path / "i", "--json")
    refs = json.loads(built.stdout)["references"]
    # (Request's three names, declared below it on its page, in one chunk; Middleware's
    # `.register_middleware` below it; Adapter's `#close` on another page)
    assert refs["resolved"] == 4 and refs["resolved"] == refs["found"], refs


def test_a_file_alone_is_read_as_before() -> None:
    # Without the pass's line a page names no giver; the alias still has its entry.
    got = ruby_to_markdown("lib/hoop/request.rb", REQUEST)
    assert "Included from" not in got.text
    assert "Hoop::Request::Helpers#referrer" in [e.name for e in got.api]


@given(st.text(max_size=200))
@FUZZ
def test_inherit_line_round_trips_and_never_fails(text: str) -> None:
    data = {text: [{"key": text, "via": text, "members": [{"name": text}]}]}
    body, read = split("class A; end" + encode(data))
    assert body == "class A; end" and read == data
    split(text)  # (any text: no error)
    ruby_to_markdown("a.rb", "module A\n  # x\n  def b; end\nend" + encode(data))
