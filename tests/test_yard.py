"""Ruby gems read as YARD (rubydoc.info) shows them: a gem's library files become pages of its
classes and modules, their public methods (`Hoop::Session#fetch`, `Hoop.start` for a class
method), attributes and documented constants, the YARD tags read as YARD renders them, `{…}`
links object references, RDoc pages (`SPEC.rdoc`) read as RDoc renders them. The fixture is a
gem in the shape of lostisland/faraday and jnunemaker/httparty (a gemspec, a `.yardopts`, `lib/`
with a module file and a class file, specs, examples)."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, run_docsmcp, write_tree
from docsmcp.sources.formats.source.ruby_lex import lex
from docsmcp.sources.formats.source.ruby_parse import parse
from docsmcp.sources.formats.source.yard import rdoc_to_markdown, ruby_to_markdown
from docsmcp.sources.packages.ruby_gem import yardopts
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

GEMSPEC = """# frozen_string_literal: true

Gem::Specification.new do |spec|
  spec.name = 'hoop'
  spec.files = Dir['lib/**/*.rb', 'README.md']
  spec.require_paths = %w[lib]
end
"""

YARDOPTS = """--no-private
--exclude lib/hoop/vendor
--markup markdown
lib/**/*.rb
-
SPEC.rdoc
"""

MAIN = """# frozen_string_literal: true

require 'hoop/session'

# Hoop sends requests through a {Session}.
#
# @example
#   Hoop.start('https://example.org').fetch('/a')
module Hoop
  class << self
    # Starts a session.
    #
    # @param url [String] the base URL
    # @param options [Hash] session options
    # @option options [Integer] :timeout (5) seconds before giving up
    # @return [Hoop::Session] the new session
    # @raise [ArgumentError] when `url` is empty
    def start(url, options = {})
      raise ArgumentError, "empty" if url.empty?
      Session.new(url, options)
    end

    private

    def internal_helper; end
  end

  # == Common options
  # [:+timeout+:] Seconds to wait.
  # [:+retries+:] Times to retry.

  module Settings
    # Sets the default timeout, in seconds.
    #
    #   class Client
    #     include Hoop
    #     default_timeout 10
    #   end
    def default_timeout(value)
      @timeout = value
    end
  end
end
"""

SESSION = """# frozen_string_literal: true

module Hoop
  # A session keeps the base URL and sends requests.
  class Session < Base
    # The verbs a session sends.
    VERBS = %i[get post end].freeze

    # @return [String] the base URL.
    attr_reader :url

    attr_accessor :headers

    # @!method head(path = nil)
    #   Sends a HEAD request.
    #   @param path [String] where to
    #   @return [Hoop::Response]

    # Creates a session for `url`.
    def initialize(url, options = {})
      @url = url
      @query = <<~SQL
        def not_a_method
        end
      SQL
      @pattern = /end|def/
    end

    # Fetches `path`; see {#head} and {Hoop.start}.
    #
    # @param path [String] the path below {#url}
    # @yield [response] when given a block
    # @yieldparam response [Hoop::Response] the response
    # @return [Hoop::Response]
    # @deprecated Use {#get} instead.
    def fetch(path = "/#{url}")
      yield get(path) if block_given?
    end

    def get(path) = request(:get, path)

    # @api private
    def request(verb, path); end

    def close # :nodoc:
    end

    protected

    def secret; end
  end
end
"""

SPEC_RDOC = """= Hoop Specification

Requests are sent with +fetch+. See {the site}[https://example.org].

== Options

[timeout] Seconds to wait.

  Hoop.start(url, timeout: 3)
"""


def _gem(root: Path) -> Path:
    return write_tree(
        root,
        {
            "README.md": "# hoop\n\nA small HTTP client.\n",
            "hoop.gemspec": GEMSPEC,
            ".yardopts": YARDOPTS,
            "SPEC.rdoc": SPEC_RDOC,
            "lib/hoop.rb": MAIN,
            "lib/hoop/session.rb": SESSION,
            "lib/hoop/vendor/shim.rb": "# Shim.\nmodule Shim\n  def x; end\nend\n",
            "spec/session_spec.rb": "# Spec.\nmodule SessionSpec\n  def t; end\nend\n",
            "examples/basic.rb": "# Example.\nclass Example\n  def run; end\nend\n",
        },
    )


def test_gem_reads_as_yard_shows_it(tmp_path: Path) -> None:
    out = build_bundle(_gem(tmp_path / "hoop"), tmp_path / "idx")
    pages = page_texts(out)
    # The library files only: no specs, examples, nor what `.yardopts` excludes.
    assert set(pages) == {"README.md", "SPEC.rdoc", "lib/hoop.rb", "lib/hoop/session.rb"}
    main = pages["lib/hoop.rb"]
    assert "# Hoop" in main and "Hoop sends requests through a `Session`." in main
    assert "## Hoop.start" in main and "def self.start(url, options = {})" in main
    assert "- `url` (`String`) — the base URL" in main
    assert "  - `options[:timeout]` (`Integer`) — seconds before giving up (default: `5`)" in main
    assert "**Returns:** `Hoop::Session` — the new session" in main
    assert "**Raises:** `ArgumentError` when `url` is empty" in main
    assert "internal_helper" not in main
    # RDoc's heading and labelled list (a comment one blank line above its module)
    assert "#### Common options" in main and "- **`timeout`** Seconds to wait." in main
    assert "## Hoop::Settings" in main and "### Hoop::Settings#default\\_timeout" in main
    assert "```ruby\nclass Client\n  include Hoop\n  default_timeout 10\nend\n```" in main
    session = pages["lib/hoop/session.rb"]
    assert "# Hoop::Session" in session and "class Hoop::Session < Base" in session
    assert "## Hoop::Session::VERBS" in session and "VERBS = %i[get post end].freeze" in session
    assert "## Hoop::Session#url" in session and "attr_reader :url" in session
    assert "## Hoop::Session#headers" in session
    assert "## Hoop::Session#head" in session and "Sends a HEAD request." in session
    assert "## Hoop::Session#fetch" in session and 'def fetch(path = "/#{url}")' in session
    assert "> **Deprecated.** Use `#get` instead." in session
    assert "**Yield parameter:** `response` (`Hoop::Response`) — the response" in session
    assert "## Hoop::Session#get" in session
    # What YARD leaves out: `@api private`, `:nodoc:`, protected, code inside literals.
    for hidden in ("#request", "#close", "#secret", "not\\_a\\_method", "not_a_method"):
        assert hidden not in session, hidden
    rdoc = pages["SPEC.rdoc"]
    assert "# Hoop Specification" in rdoc and "## Options" in rdoc
    assert "Requests are sent with `fetch`. See [the site](https://example.org)." in rdoc
    assert "- **timeout** Seconds to wait." in rdoc
    assert "```ruby\nHoop.start(url, timeout: 3)\n```" in rdoc

    api = ApiRegistry(open_bundle(out))
    names = set(api.names)
    assert {
        "Hoop",
        "Hoop.start",
        "Hoop::Settings#default_timeout",
        "Hoop::Session",
        "Hoop::Session::VERBS",
        "Hoop::Session#url",
        "Hoop::Session#head",
        "Hoop::Session#fetch",
        "Hoop::Session#initialize",
    } <= names
    assert not {n for n in names if "request" in n or "Shim" in n or "Example" in n}
    spec = api.spec(api.lookup("Hoop.start")[0])
    assert spec["description"] == "Starts a session."
    assert spec["returns"] == "Hoop::Session: the new session"
    assert [(p["name"], p["type"]) for p in spec["parameters"]] == [
        ("url", "String"),
        ("options", "Hash"),
        ("options[:timeout]", "Integer"),
    ]


def test_init_checks_the_files_the_build_reads(tmp_path: Path) -> None:
    """init validates its proposal on a copy of the docs folder; it left hidden entries out, so
    a gem's `.yardopts` (which names the pages) was missing there: faraday's init said 70 files
    and 323 API entries where the build reads 68 and registers 298."""
    root = _gem(tmp_path / "hoop")
    init = run_docsmcp("init", "--docs-dir", root, "--write")
    build = run_docsmcp("build", "--docs-dir", root, "--out", tmp_path / "idx")
    files = re.search(r"built \S+: (\d+) files, (\d+) chunks", build.stdout + build.stderr)
    assert files is not None, build.stderr
    assert f"validate: ok: {files[1]} files, {files[2]} chunks" in init.stdout + init.stderr


def test_object_links_are_references(tmp_path: Path) -> None:
    page = ruby_to_markdown("lib/hoop/session.rb", SESSION)
    refs = {name for _, name in page.refs}
    # `{#head}` inside Hoop::Session is Hoop::Session#head; anchors answer each shorter path.
    assert {"Hoop::Session#head", "Hoop.start", "Hoop::Session#url", "Hoop::Session#get"} <= refs
    anchors = {a for _, a in page.anchors}
    assert {"object:Hoop::Session#head", "object:Session#head"} <= anchors
    main = ruby_to_markdown("lib/hoop.rb", MAIN)
    assert {"object:Hoop.start", "object:Hoop"} <= {a for _, a in main.anchors}


def test_ruby_outside_a_gem_is_no_page(tmp_path: Path) -> None:
    tree = write_tree(
        tmp_path / "site",
        {
            "index.md": "# Site\n\nText.\n",
            "_plugins/tag.rb": "# A Jekyll tag.\nmodule Tag\n  def render; end\nend\n",
        },
    )
    assert set(page_texts(build_bundle(tree, tmp_path / "idx"))) == {"index.md"}


def test_yardopts_and_rdoc() -> None:
    assert yardopts(YARDOPTS) == (["lib/**/*.rb"], ["lib/hoop/vendor"], ["SPEC.rdoc"])
    assert yardopts("--readme README.md --files a.md,b.md 'lib/x.rb'") == (
        ["lib/x.rb"],
        [],
        ["a.md", "b.md"],
    )
    # RDoc's verbatim text follows a blank line or a line ending in `:`; markdown's hanging
    # indent is text
    text = "# Use it like so:\n#   Hoop.start(url)\n# Options\n#   @return [Hash] x\n"
    text += "module Hoop; end\n"
    shown = ruby_to_markdown("lib/hoop.rb", text).text
    assert "Use it like so:\n```ruby\nHoop.start(url)\n```" in shown
    assert "Options\n  @return [Hash] x" in shown
    done = rdoc_to_markdown("README.rdoc", "= Title\n:include: other.rdoc\n\nUse <tt>x</tt>.\n")
    assert done.title == "Title" and "Use `x`." in done.text and ":include:" not in done.text


def test_lexer_reads_literals_whole() -> None:
    text = (
        "x = <<~A + <<-B\n  end\nA\n  def b\n  B\n"
        "y = %w[a end] + %q{x {end} y}\n"
        'z = ?# + "#{\'}\' + "end"}" # note\n'
        "=begin\ndef hidden\n=end\n"
        "r = s.split /end/\n"
        "w = a / b\n"
        "__END__\ndef data\n"
    )
    lines = lex(text)
    codes = [line.code for line in lines]
    assert codes[:5] == ['x = "" + ""', "", "", "", ""]
    assert codes[5] == "y = %w[] + %q{}"
    assert codes[6] == 'z = ?c + ""' and lines[6].comment == " note"
    assert codes[7:10] == ["", "", ""]
    assert codes[10] == "r = s.split //" and codes[11] == "w = a / b"
    assert len(lines) == 12  # (nothing after __END__)
    assert not any("end" in c or "def" in c for c in codes[:11])


def test_names_as_ruby_calls_them() -> None:
    text = (
        "module A\n  class << self\n    attr_accessor :root\n  end\n  module_function\n"
        "  def f; end\nend\n"
        "class A::B\n  def self.c; end\n  def ==(o) = true\n  def []=(k, v); end\n"
        "  private def p; end\n  def q?; end\n  private :q?\nend\n"
    )
    objs = parse(lex(text))
    shown = {o.path for o in objs if not o.hidden}
    assert shown == {"A", "A.root", "A.f", "A::B", "A::B.c", "A::B#==", "A::B#[]="}


@FUZZ
@given(
    st.text(
        alphabet="#{}[]()<<~-'\"%wq?/=\\:;\n abcdefEOSlnsu@!",
        max_size=300,
    )
)
def test_reader_never_fails_on_any_text(text: str) -> None:
    lines = lex(text)
    assert len(lines) <= text.count("\n") + 1
    page = ruby_to_markdown("lib/a.rb", "module A\n  # Doc.\n  def f; end\n" + text)
    assert isinstance(page.text, str)
    assert isinstance(rdoc_to_markdown("A.rdoc", text).text, str)


@FUZZ
@given(
    st.lists(
        st.sampled_from(
            ['"end"', "'def'", "%w[end]", "%q{ {end} }", '"#{"end"}"', "?e", "# end", "x", ";"]
        ),
        max_size=30,
    )
)
def test_literals_hide_their_keywords(parts: list[str]) -> None:
    for line in lex(" + ".join(parts)):  # (operands: `%w[` after a value is a modulo)
        assert "end" not in line.code and "def" not in line.code


def test_hostile_input_ends() -> None:
    deep = "module A\n" * 3000 + "  # x\n  def f; end\n" + "end\n" * 3000
    assert isinstance(ruby_to_markdown("lib/a.rb", deep).text, str)
    lex('"#{' * 20000)
    lex("<<~A\n" * 5000)
    many = "class A\n" + "  def x; end\n  private :x\n" * 20000 + "end\n"
    assert ruby_to_markdown("lib/a.rb", many).text.count("## A#x") <= 1  # (one object)
    assert isinstance(ruby_to_markdown("lib/a.rb", "module A\n  def f(\n" * 5000).text, str)


STRUCTS = """# frozen_string_literal: true

module Hoop
  # A request to send.
  #
  # @!attribute verb
  #   @return [Symbol] the HTTP verb
  Call = Struct.new(:verb, :path, :params) do
    # Builds a call.
    #
    # @return [Call]
    def self.create(verb)
      new(verb)
    end

    # Replaces the params.
    def params=(hash)
      self[:params] = hash
    end
  end

  # A point.
  Point = Data.define(:x, :y)

  # Raised when a call fails.
  Failed = Class.new(StandardError) do
    # The call that failed.
    def call; end
  end
end
"""


def test_struct_new_is_a_class_as_yard_shows_it(tmp_path: Path) -> None:
    """faraday's `Request = Struct.new(:http_method, :path, …) do … end` is the class
    `Faraday::Request` with those attributes and the block's methods (as YARD shows it), not
    members `Faraday#http_method` of the enclosing module."""
    root = _gem(tmp_path / "hoop")
    (root / "lib/hoop/call.rb").write_text(STRUCTS)
    out = build_bundle(root, tmp_path / "idx")
    api = ApiRegistry(open_bundle(out))
    names = set(api.names)
    assert {
        "Hoop::Call",
        "Hoop::Call#verb",
        "Hoop::Call#path",
        "Hoop::Call#params",
        "Hoop::Call.create",
        "Hoop::Call#params=",
        "Hoop::Point",
        "Hoop::Point#x",
        "Hoop::Failed",
        "Hoop::Failed#call",
    } <= names
    assert not {"Hoop#verb", "Hoop#path", "Hoop.create", "Hoop#call"} & names
    assert api.spec(api.lookup("Hoop::Call")[0])["description"] == "A request to send."
    page = page_texts(out)["lib/hoop/call.rb"]
    assert "class Hoop::Call < Struct" in page and "class Hoop::Failed < StandardError" in page
    assert "the HTTP verb" in page
