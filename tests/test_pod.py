"""Perl's POD read as perldoc and metacpan render it: a CPAN distribution's `lib/` modules and
`.pod` guides become pages titled by `=head1 NAME` (or Pod::Weaver's `# ABSTRACT:`), their
METHODS/ATTRIBUTES/FUNCTIONS/EVENTS API entries named as Perl calls them
(`Hoop::UserAgent::get`, found as `get` and `Hoop::UserAgent->get`), formatting codes as
markdown, `L<>` links references, the code of a module never shown. The fixture is a
distribution in the shape of mojolicious/mojo, moose/Moose and PerlDancer/Dancer2 (a
Makefile.PL, `lib/` modules with POD after `__END__`, a `.pod` guide, Pod::Weaver's `=method`,
tests, examples and a vendored `inc/`)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.sources.formats.source.pod import entry_name, pod_to_markdown
from docsmcp.sources.formats.source.pod_codes import render
from docsmcp.sources.formats.source.pod_parse import paragraphs
from docsmcp.sources.packages import perl_dist
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.tools.app import DocsApp
from hypothesis import given
from hypothesis import strategies as st

USER_AGENT = """package Hoop::UserAgent;
use Mojo::Base 'Hoop::EventEmitter';

sub get { my $self = shift; return $self->secret_helper(@_) }
sub secret_helper { 'never shown' }

1;

=encoding utf8

=head1 NAME

Hoop::UserAgent - Non-blocking I/O HTTP user agent

=head1 SYNOPSIS

  use Hoop::UserAgent;

  my $ua = Hoop::UserAgent->new;
  say $ua->get('example.com')->result->body;

=head1 DESCRIPTION

L<Hoop::UserAgent> is a full featured B<non-blocking> I/O HTTP user agent, see
L<Hoop::Guides::Tour/"User agent"> and L<the spec|https://example.org/spec>.
Values are C<< $a->b >> and E<lt>tagE<gt> with X<index>Z<>S<no break>.

=begin html

<p>Shown as <b>text</b></p>

=end html

=for comment Dropped text

=begin latex

\\dropped

=end latex

=head1 EVENTS

=head2 start

  $ua->on(start => sub ($ua, $tx) {...});

Emitted whenever a transaction is about to start.

=head1 ATTRIBUTES

=head2 max_redirects

  my $max = $ua->max_redirects;
  $ua     = $ua->max_redirects(3);

Maximum number of redirects the user agent will follow, defaults to C<0>.

=head1 METHODS

=head2 get

  my $tx = $ua->get('example.com');

Perform blocking C<GET> request, see L</"max_redirects">.

=over 2

=item * first point

=item * second point

=back

=head2 Helpers of its own

Words, not a method.

=head1 SEE ALSO

L<Hoop>, L<http://example.com>.

=cut
"""

UTIL = """package Hoop::Util;
use strict;

sub b64_encode { }

1;

=head1 NAME

Hoop::Util - Portable utility functions

=head1 FUNCTIONS

=over 4

=item B<< b64_encode($bytes) >>

Base64 encode bytes.

=item B<slugify>

Make a slug.

=back

=head2 Options

=over 4

=item timeout

Seconds to wait, a definition, not a function.

=item 1. numbered

=back

=cut
"""

# Pod::Weaver's source: no NAME, `# ABSTRACT:`, `=method`/`=attr` gathered by section.
WOVEN = """package Hoop::App;
# ABSTRACT: Encapsulation of a Hoop application

use Moo;

=method route

  $app->route(get => '/' => sub { ... });

Add a route.

=cut

sub route { }

=attr name

The application's name.

=cut

has name => (is => 'ro');

=head1 DESCRIPTION

The application object.

=cut

1;
"""

GUIDE = """# PODNAME: Hoop::Guides::Tour
# ABSTRACT: A tour of Hoop

=pod

=head1 TOUR

Start here. Code from another package:

  package Person;
  use Hoop;

=head2 User agent

The L<Hoop::UserAgent> fetches pages with L<Hoop::UserAgent/get>.

=cut
"""


def _dist(root: Path) -> Path:
    return write_tree(
        root,
        {
            "Makefile.PL": "use ExtUtils::MakeMaker;\nWriteMakefile(NAME => 'Hoop');\n",
            "README.md": "# Hoop\n\nA web toolkit.\n",
            "lib/Hoop.pm": "package Hoop;\n1;\n\n=head1 NAME\n\nHoop - Web toolkit\n\n=cut\n",
            "lib/Hoop/UserAgent.pm": USER_AGENT,
            "lib/Hoop/Util.pm": UTIL,
            "lib/Hoop/App.pm": WOVEN,
            "lib/Hoop/Guides/Tour.pod": GUIDE,
            "lib/Hoop/NoPod.pm": "package Hoop::NoPod;\nsub x { }\n1;\n",
            "t/basic.t": "use Test::More;\nok 1;\n",
            "t/lib/Helper.pm": "package Helper;\n1;\n=head1 NAME\n\nHelper - test\n\n=cut\n",
            "t/templates/page.html.pod": "=head1 A template\n\nText.\n",
            "inc/Module/Install.pm": "package Module::Install;\n=head1 NAME\n\nMI - x\n",
            "examples/app.pl": "use Hoop;\n=head1 NAME\n\napp - example\n\n=cut\n",
            "share/skel/lib/MyApp.pm": "package MyApp;\n=head1 NAME\n\nMyApp - skel\n",
        },
    )


def test_distribution_reads_as_metacpan_shows_it(tmp_path: Path) -> None:
    out = build_bundle(_dist(tmp_path / "Hoop"), tmp_path / "idx")
    pages = page_texts(out)
    # A distribution's modules and POD only; a module without POD is no page.
    assert set(pages) == {
        "README.md",
        "lib/Hoop.pm",
        "lib/Hoop/UserAgent.pm",
        "lib/Hoop/Util.pm",
        "lib/Hoop/App.pm",
        "lib/Hoop/Guides/Tour.pod",
    }
    ua = pages["lib/Hoop/UserAgent.pm"]
    assert "# Hoop::UserAgent - Non-blocking I/O HTTP user agent" in ua
    assert "secret_helper" not in ua and "never shown" not in ua and "use Mojo::Base" not in ua
    assert "```perl\nuse Hoop::UserAgent;\n\nmy $ua = Hoop::UserAgent->new;" in ua
    assert "Hoop::UserAgent is a full featured **non-blocking** I/O HTTP user agent" in ua
    assert '"User agent" in Hoop::Guides::Tour and [the spec](https://example.org/spec)' in ua
    assert "Values are `$a->b` and \\<tag\\> with no break." in ua
    assert "Shown as text" in ua and "Dropped" not in ua and "dropped" not in ua
    assert "## METHODS" in ua and "### get" in ua and "- first point\n\n- second point" in ua
    util = pages["lib/Hoop/Util.pm"]
    assert "### b64\\_encode($bytes)" in util or "### b64_encode($bytes)" in util
    assert "- **timeout**\n\n  Seconds to wait" in util and "1. numbered" in util
    woven = pages["lib/Hoop/App.pm"]
    assert "# Hoop::App - Encapsulation of a Hoop application" in woven
    # Pod::Weaver's order: DESCRIPTION, then ATTRIBUTES, then METHODS
    order = [woven.index(h) for h in ("## DESCRIPTION", "## ATTRIBUTES", "## METHODS")]
    assert order == sorted(order) and "### route" in woven and "### name" in woven
    # A `package` in a POD example names nothing: `# PODNAME:` does.
    assert "# Hoop::Guides::Tour - A tour of Hoop" in pages["lib/Hoop/Guides/Tour.pod"]

    api = ApiRegistry(open_bundle(out))
    assert {
        "Hoop::UserAgent",
        "Hoop::UserAgent::get",
        "Hoop::UserAgent::max_redirects",
        "Hoop::UserAgent::start",
        "Hoop::Util::b64_encode",
        "Hoop::Util::slugify",
        "Hoop::App::route",
        "Hoop::App::name",
    } <= set(api.names)
    assert not {n for n in api.names if n.endswith(("timeout", "Helpers", "numbered"))}
    assert "Hoop::Guides::Tour" not in api.names  # (a guide is no module)
    for asked in ("get", "Hoop::UserAgent->get", "UserAgent::get", "Hoop::UserAgent::get"):
        found = api.lookup(asked)
        assert found and api.names[found[0]] == "Hoop::UserAgent::get", asked
    spec = api.spec(api.lookup("Hoop::UserAgent::max_redirects")[0])
    assert spec["kind"] == "attribute" and spec["signature"] == "my $max = $ua->max_redirects;"
    assert spec["description"].startswith("Maximum number of redirects")
    assert api.spec(api.lookup("b64_encode")[0])["signature"] == "b64_encode($bytes)"

    app = DocsApp(open_bundle(out))
    result = app.call_tool("get_api_reference", {"method": "Hoop::UserAgent->get"})
    entry = result["structuredContent"]["entries"][0]
    assert entry["name"] == "Hoop::UserAgent::get"
    assert entry["examples"][0]["code"] == "my $tx = $ua->get('example.com');"
    hits = app.call_tool("search_docs", {"query": "Hoop::UserAgent->get"})
    assert hits["structuredContent"]["hits"][0]["chunk_id"] == entry["chunk_id"]
    hits = app.call_tool("search_docs", {"query": "tour of Hoop start here"})
    first = hits["structuredContent"]["hits"][0]
    assert first["filepath"] == "lib/Hoop/Guides/Tour.pod"
    # `L<Hoop::UserAgent/get>` is a reference to the method's section
    doc = app.call_tool("get_doc", {"chunk_id": first["chunk_id"]})["content"][0]["text"]
    assert "Start here." in doc and '"get" in Hoop::UserAgent.' in doc
    # `L<Hoop::UserAgent>` and `L<Hoop::UserAgent/get>`: references to the page and the method
    refs = [r["id"] for r in first["references"]]
    assert refs == ["lib/Hoop/UserAgent.pm#Hoop-UserAgent", entry["chunk_id"]]


def test_a_distribution_beside_the_docs_is_read_with_api_source(tmp_path: Path) -> None:
    dist = _dist(tmp_path / "Hoop")
    site = write_tree(tmp_path / "site", {"index.md": "# Hoop's site\n\nSee the agent.\n"})
    out = build_bundle(site, tmp_path / "idx", "--api-source", str(dist))
    assert "Hoop/lib/Hoop/UserAgent.pm" in page_texts(out)
    api = ApiRegistry(open_bundle(out))
    assert api.names[api.lookup("Hoop::UserAgent->get")[0]] == "Hoop::UserAgent::get"


def test_the_same_tree_builds_the_same_bundle(tmp_path: Path) -> None:
    root = _dist(tmp_path / "Hoop")
    a = build_bundle(root, tmp_path / "a")
    b = build_bundle(root, tmp_path / "b", "--workers", "1")
    meta = "metadata.json"
    assert (
        json.loads((a / meta).read_text())["bundle_id"]
        == json.loads((b / meta).read_text())["bundle_id"]
    )


def test_which_perl_files_are_pages(tmp_path: Path) -> None:
    """A distribution's lib/ modules, bin/ and script/ commands and .pod files; in a tree
    without a distribution only a lib/ folder's modules (a C project's Perl is build code)."""
    files = [
        "dist/lib/A.pm",
        "dist/lib/A/Guide.pod",
        "dist/bin/a.pl",
        "dist/script/b.pl",
        "dist/bin/sub/c.pl",
        "dist/t/lib/T.pm",
        "dist/xt/x.pod",
        "dist/local/lib/perl5/L.pm",
        "dist/blib/lib/A.pm",
        "dist/examples/e.pl",
        "dist/share/skel/lib/S.pm",
        "tools/lib/Gen.pm",
        "tools/gen.pl",
        "tools/Util.pm",
        "doc/openssl.pod",
    ]
    write_tree(tmp_path, {"dist/dist.ini": "name = A\n", **{f: "" for f in files}})
    pages = set(files) - perl_dist.no_pages(tmp_path, [tmp_path], files)
    assert pages == {
        "dist/lib/A.pm",
        "dist/lib/A/Guide.pod",
        "dist/bin/a.pl",
        "dist/script/b.pl",
        "doc/openssl.pod",
    }
    lib = write_tree(tmp_path / "lib", {"A.pm": "", "A/B.pm": "", "t/T.pm": ""})
    listed = ["A.pm", "A/B.pm", "t/T.pm"]
    assert perl_dist.no_pages(lib, [lib], listed) == {"t/T.pm"}
    other = write_tree(tmp_path / "c", {"scripts/x.pl": "", "Tool.pm": "", "lib/M.pm": ""})
    listed = ["scripts/x.pl", "Tool.pm", "lib/M.pm"]
    assert perl_dist.no_pages(other, [other], listed) == {"scripts/x.pl", "Tool.pm"}


def test_formatting_codes() -> None:
    shown = render(
        "B<bold> I<it> C<< $a->b >> C<<< x >> y >>> F<a_b.txt> E<gt>E<lt>E<0x41>E<eacute>"
    )
    assert shown.md == "**bold** *it* `$a->b` `x >> y` `a_b.txt` \\>\\<Aé"
    assert render("X<index>Z<>S<a b>").md == "a b"
    links = render(
        'L<Mod::A> L<text|Mod::B/"Sec x"> L</local> L<perlfunc(1)> L<https://x.org>', "P"
    )
    assert links.refs == ("Mod::A", "Mod::B/Sec x", "P/local")
    assert links.md == 'Mod::A text "local" perlfunc(1) [https://x.org](https://x.org)'
    # nested codes, unclosed codes and stray brackets are text, never an error
    assert render("B<I<both>>").md == "***both***"
    assert render("C<open").md == "`open`" and render("a > b").md == "a > b"
    assert render("*star* _under_ <tag> [x]").md == "\\*star\\* \\_under\\_ \\<tag> \\[x]"


def test_paragraphs_and_regions() -> None:
    text = "code\n=pod\n\n  a\n\n  b\n\n=for html <b>kept</b>\n\n=for comment x\n\n=cut\nmore\n"
    paras = paragraphs(text)
    assert [(p.kind, p.text) for p in paras] == [
        ("command", ""),
        ("verbatim", "  a\n\n  b"),
        ("data", "kept"),
    ]
    assert entry_name("$ua->get('x')") == ("get", "('x')")
    assert entry_name("Class::MOP::Class->create($name)") == ("create", "($name)")
    assert entry_name("has $name => %options") == ("has", "$name => %options")
    assert entry_name("Attribute Helpers") is None and entry_name("my $x = 1") is None
    assert pod_to_markdown("lib/A.pm", "package A;\nsub f { }\n1;\n").text == ""


def test_deep_and_long_input_converts_in_linear_time() -> None:
    for text in (
        "B<" * 50_000 + "x" + ">" * 50_000,
        "C<<< " + "a >> " * 40_000 + ">>>",
        "L<" + "|" * 100_000 + ">",
        "E<" * 30_000,
        "=head2 " + "x" * 200_000 + "\n\n" + "=item B<" * 20_000,
    ):
        started = time.process_time()
        done = pod_to_markdown("lib/A.pod", "=head1 NAME\n\nA - b\n\n=head1 METHODS\n\n" + text)
        assert isinstance(done.text, str)
        assert time.process_time() - started < 5, text[:20]


@FUZZ
@given(st.text(alphabet='=headoverbackitmcutpd1234 \n\t*<>|/"BICELSXZF:$-', max_size=300))
def test_reader_never_fails_on_any_text(text: str) -> None:
    done = pod_to_markdown("lib/A/B.pm", "package A::B;\n=head1 NAME\n\nA::B - x\n\n" + text)
    assert isinstance(done.text, str)
    assert len(done.line_map) in (0, done.text.count("\n") + 1)
    assert all(e.line_start <= e.line_end for e in done.api)
    assert isinstance(render(text).md, str)


def test_suffixless_command_of_a_distribution_is_its_page(tmp_path: Path) -> None:
    """Mojolicious's `script/mojo` and Dancer2's `script/dancer2` have no suffix; metacpan shows
    their POD as the command's page. Only such a file of a distribution's `bin/`/`script/` with
    a Perl shebang and POD is read: a shell script there, one without POD, and a suffixless
    file elsewhere (or in a tree without a distribution) stay unread."""
    command = (
        "#!/usr/bin/env perl\nuse strict;\nrun();\n\n=head1 NAME\n\n"
        "hoop - The Hoop command system\n\n=head1 SYNOPSIS\n\n  $ hoop fetch URL\n\n"
        "=head1 DESCRIPTION\n\nFetches a page with the hoopla engine.\n\n=cut\n"
    )
    files = {
        "Makefile.PL": "use ExtUtils::MakeMaker;\n",
        "lib/Hoop.pm": "package Hoop;\n1;\n\n=head1 NAME\n\nHoop - client\n\n=cut\n",
        "script/hoop": command,
        "script/plain": "#!/usr/bin/env perl\nprint 1;\n",
        "bin/setup": "#!/bin/sh\n: <<'=cut'\n=head1 NAME\n\nsetup\n\n=cut\n",
        "tools/hoop": command,
    }
    out = build_bundle(write_tree(tmp_path / "dist", files), tmp_path / "idx")
    pages = page_texts(out)
    assert set(pages) == {"lib/Hoop.pm", "script/hoop"}
    assert "# hoop - The Hoop command system" in pages["script/hoop"]
    hits = DocsApp(open_bundle(out)).call_tool("search_docs", {"query": "hoopla engine"})
    assert hits["structuredContent"]["hits"][0]["filepath"] == "script/hoop"
    # no distribution: the same file is no page
    files.pop("Makefile.PL")
    out = build_bundle(write_tree(tmp_path / "loose", files), tmp_path / "idx2")
    assert "script/hoop" not in page_texts(out)
