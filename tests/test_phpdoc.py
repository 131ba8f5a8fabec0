"""PHP libraries read as phpDocumentor shows them: the source folders a library's phpdoc.xml or
composer.json's `autoload` names become a page per class file, each public or protected member
a section and an API entry named as PHP calls it, their PHPDoc rendered as phpDocumentor
renders it. The fixtures are repositories in the shape of Seldaek/monolog (composer.json's
psr-4 `src/Monolog`, markdown in `doc/`, `tests/`), guzzle/guzzle (a `files` autoload of
functions) and PHPMailer (a phpDocumentor 2 `phpdoc.dist.xml` naming `src`)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle, page_texts, run_docsmcp, write_tree
from docsmcp.sources.formats.source import phpdoc_tags
from docsmcp.sources.formats.source.php_lex import tokens
from docsmcp.sources.formats.source.php_parse import parse
from docsmcp.sources.formats.source.phpdoc import php_to_markdown
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

COMPOSER = """{
    "name": "acme/log",
    "autoload": {
        "psr-4": {"Acme\\\\Log\\\\": "src/Log"},
        "files": ["src/functions.php"]
    },
    "autoload-dev": {"psr-4": {"Acme\\\\Log\\\\Test\\\\": "tests/Log"}}
}
"""

LOGGER = """<?php declare(strict_types=1);

/*
 * This file is part of the Acme package.
 */

namespace Acme\\Log;

use Acme\\Log\\Handler\\HandlerInterface;
use Psr\\Log\\LoggerInterface as PsrLogger;

/**
 * The log channel.
 *
 * Holds a stack of {@see HandlerInterface handlers} and sends records to them.
 *
 * @template TContext of array
 * @property-read string $channel The channel's name.
 * @method static Logger make(string $name, array $handlers = []) Makes a logger.
 * @see https://acme.test/log Acme's guide
 */
#[\\Attribute(\\Attribute::TARGET_CLASS)]
final class Logger implements PsrLogger, ResettableInterface
{
    use LoggerTrait;

    /**
     * Detailed debug information
     *
     * @deprecated Use Level::Debug
     */
    public const DEBUG = 100;

    private const SECRET = 'x';

    /** @var list<HandlerInterface> The handler stack */
    protected array $handlers = [];

    private int $depth = 0;

    public function __construct(
        protected string $name,
        private readonly bool $hidden = false,
    ) {
    }

    /**
     * Pushes a handler on to the stack.
     *
     * @param HandlerInterface $handler The handler; see {@see Logger::popHandler()}.
     * @return $this
     * @throws \\LogicException If the stack is locked
     */
    public function pushHandler(HandlerInterface $handler): self
    {
        $s = "{$handler->name()} }";
        $t = <<<EOT
          } not code {
          EOT;
        return $this;
    }

    /**
     * Pops a handler from the stack
     *
     * @phpstan-return HandlerInterface
     */
    public function popHandler()
    {
        return array_shift($this->handlers);
    }

    /**
     * Adds a record at a level.
     *
     * @param int|Level $level   The level
     * @param string    $message The message
     * @param mixed     ...$more More values
     */
    public function log($level, string $message = 'none', &$out = null, ...$more): void
    {
    }

    /** @internal */
    public function internalHook(): void {}

    private function secret(): void {}
}
"""

LEVEL = """<?php
namespace Acme\\Log;

/**
 * The log levels, as RFC 5424 names them.
 */
enum Level: int
{
    /** Detailed debug information */
    case Debug = 100;
    case Info = 200;

    /**
     * The level's name.
     */
    public function getName(): string
    {
        return match ($this) { self::Debug => 'DEBUG', self::Info => 'INFO' };
    }
}
"""

HANDLER_INTERFACE = """<?php
namespace Acme\\Log\\Handler;

/**
 * Takes care of records.
 */
interface HandlerInterface
{
    /**
     * Handles a record.
     *
     * @return bool true means that this handler handled the record
     */
    public function handle(array $record): bool;
}
"""

FUNCTIONS = """<?php
namespace Acme\\Log;

/**
 * Debug function used to describe the provided value type and class.
 *
 * @param mixed $input Any type of variable to describe
 */
function describe_type($input): string
{
    return gettype($input);
}
"""


def _library(root: Path) -> Path:
    return write_tree(
        root,
        {
            "README.md": "# Acme Log\n\nSee `Logger::pushHandler()`.\n",
            "composer.json": COMPOSER,
            "doc/01-usage.md": "# Usage\n\nCreate a logger and push handlers.\n",
            "src/Log/Logger.php": LOGGER,
            "src/Log/Level.php": LEVEL,
            "src/Log/Handler/HandlerInterface.php": HANDLER_INTERFACE,
            "src/Log/Handler/StreamHandlerTest.php": "<?php\nclass StreamHandlerTest {}\n",
            "src/Log/Resources/template.php": "<h1><?= $title ?></h1>\n",
            "src/Log/Tests/LoggerCase.php": "<?php\nclass LoggerCase {}\n",
            "src/functions.php": FUNCTIONS,
            "tests/Log/LoggerTest.php": "<?php\nnamespace Acme\\Log\\Test;\nclass LoggerTest {}\n",
            "vendor/psr/log/src/LoggerInterface.php": "<?php\ninterface LoggerInterface {}\n",
            "bin/console.php": "<?php\nfunction main() {}\n",
        },
    )


def test_library_reads_as_phpdocumentor_shows_it(tmp_path: Path) -> None:
    out = build_bundle(_library(tmp_path / "acme"), tmp_path / "idx")
    pages = page_texts(out)
    # composer.json's autoload folders and files; no tests, vendor/, templates or scripts.
    assert set(pages) == {
        "README.md",
        "doc/01-usage.md",
        "src/Log/Logger.php",
        "src/Log/Level.php",
        "src/Log/Handler/HandlerInterface.php",
        "src/functions.php",
    }
    text = pages["src/Log/Logger.php"]
    assert "# Acme\\Log\\Logger" in text
    assert "```php\nfinal class Logger implements PsrLogger, ResettableInterface\n```" in text
    assert "Holds a stack of [handlers](#Acme-Log-Handler-HandlerInterface)" not in text
    assert "Holds a stack of handlers and sends records to them." in text
    assert "- `TContext` of array" in text
    assert "**Uses:** `LoggerTrait`" in text
    assert "- [Acme's guide](https://acme.test/log)" in text
    # Members as PHP names them, in phpDocumentor's order: constants, properties, methods.
    order = [
        text.index(x)
        for x in (
            "## Logger::DEBUG",
            "## Logger::$handlers",
            "## Logger::$name",
            "## Logger::$channel",
            "## Logger::__construct()",
            "## Logger::pushHandler()",
            "## Logger::make()",
        )
    ]
    assert order == sorted(order)
    assert "```php\npublic const DEBUG = 100\n```" in text
    assert "**Deprecated.** Use Level::Debug" in text
    assert "```php\nprotected array $handlers = []\n```" in text
    assert "The handler stack" in text
    assert "**Type:** `list<HandlerInterface>`" in text  # (`@var` says more than `array`)
    assert "```php\nprotected string $name\n```" in text  # (a promoted parameter)
    assert "```php\npublic function pushHandler(HandlerInterface $handler): self\n```" in text
    assert "- `$handler` `HandlerInterface` - The handler; see [`Logger::popHandler()`]" in text
    assert "**Returns:** `self`" in text
    assert "- `\\LogicException` - If the stack is locked" in text
    assert "**Returns:** `HandlerInterface`" in text  # (`@phpstan-return`: no other type)
    assert (
        "public function log($level, string $message = 'none', &$out = null, ...$more): void"
        in text
    )
    assert "- `$level` `int|Level` - The level" in text
    assert "- `$message` `string` = `'none'` - The message" in text
    assert "- `...$more` `mixed` - More values" in text
    assert "```php\npublic string $channel\n```" in text
    assert "(read-only)" in text
    assert "public static function make(string $name, array $handlers = []): Logger" in text
    for hidden in ("SECRET", "$depth", "secret()", "internalHook", "not code"):
        assert hidden not in text
    assert "## Logger::$hidden" not in text  # (a private promoted parameter: no property)
    level = pages["src/Log/Level.php"]
    assert "```php\nenum Level: int\n```" in level
    assert "## Level::Debug" in level and "```php\ncase Debug = 100\n```" in level
    assert "## Level::getName()" in level
    functions = pages["src/functions.php"]
    assert "# Functions in Acme\\Log" in functions
    assert "## describe_type()" in functions

    api = ApiRegistry(open_bundle(out))
    names = set(api.names)
    assert {
        "Acme\\Log\\Logger",
        "Acme\\Log\\Logger::pushHandler",
        "Acme\\Log\\Logger::DEBUG",
        "Acme\\Log\\Logger::$handlers",
        "Acme\\Log\\Logger::$channel",
        "Acme\\Log\\Logger::make",
        "Acme\\Log\\Level::Debug",
        "Acme\\Log\\Handler\\HandlerInterface::handle",
        "Acme\\Log\\describe_type",
    } <= names
    assert not {n for n in names if "Test" in n or "secret" in n or "internal" in n}
    # Found as PHP code calls it: qualified, or by the class's short name.
    found = [api.spec(i) for i in api.lookup("Logger::pushHandler")]
    assert [e["name"] for e in found] == ["Acme\\Log\\Logger::pushHandler"]
    push = found[0]
    assert push["description"] == "Pushes a handler on to the stack."
    assert [(p["name"], p["type"], p["required"]) for p in push["parameters"]] == [
        ("$handler", "HandlerInterface", True)
    ]
    assert push["chunk_id"] == "src/Log/Logger.php#Logger/method_pushHandler"
    log = api.spec(api.lookup("Logger::log")[0])
    assert [p["required"] for p in log["parameters"]] == [True, False, False, False]

    roles = {
        r["path"]: json.loads(r["metadata"]).get("role")
        for r in pq.read_table(out / "chunks.parquet", columns=["path", "metadata"]).to_pylist()
    }
    assert roles["src/Log/Logger.php"] == "generated"
    assert roles["doc/01-usage.md"] != "generated"
    # `{@see}` and the types a signature names reach the other class's page.
    ids = [r["id"] for r in pq.read_table(out / "chunks.parquet", columns=["id"]).to_pylist()]
    sections = pq.read_table(out / "sections.parquet", columns=["references"]).to_pylist()
    linked = {ids[k]: [ids[x] for x in r["references"] or []] for k, r in enumerate(sections)}
    assert (
        "src/Log/Handler/HandlerInterface.php#HandlerInterface"
        in linked["src/Log/Logger.php#Logger/method_pushHandler"]
    )
    assert "src/Log/Level.php#Level" in linked["src/Log/Logger.php#Logger/method_log"]


def test_init_proposes_no_exclude_for_php_that_is_no_page(tmp_path: Path) -> None:
    # The tests' and scripts' PHP is no page (php_package.no_pages), so init needs no glob
    # for it (monolog's proposal said `exclude tests/**: 94 files`).
    proposed = run_docsmcp("init", "--docs-dir", _library(tmp_path / "acme"), "--stdout")
    assert "tests/**" not in proposed.stdout and "bin/**" not in proposed.stdout


def test_phpdoc_xml_names_the_sources(tmp_path: Path) -> None:
    # PHPMailer's phpDocumentor 2 file, and phpDocumentor 3's `<source><path>` with an ignore.
    v2 = """<?xml version="1.0" encoding="UTF-8" ?>
<phpdoc>
    <title>Mailer</title>
    <files>
        <directory>src</directory>
    </files>
</phpdoc>
"""
    v3 = """<?xml version="1.0" encoding="UTF-8" ?>
<phpdocumentor configVersion="3">
    <!-- <path>old</path> -->
    <version number="latest">
        <api>
            <source dsn=".">
                <path>lib</path>
            </source>
            <ignore><path>lib/Internal/**/*</path></ignore>
        </api>
    </version>
</phpdocumentor>
"""
    mail = (
        "<?php\nnamespace M;\n/** Sends mail. */\nclass Mailer {\n  public function send() {}\n}\n"
    )
    root = write_tree(
        tmp_path / "a",
        {
            "phpdoc.dist.xml": v2,
            "composer.json": '{"autoload": {"psr-4": {"M\\\\": "other/"}}}',
            "src/Mailer.php": mail,
            "other/Other.php": mail.replace("Mailer", "Other"),
            "language/phpmailer.lang-de.php": "<?php\n$PHPMAILER_LANG['x'] = 'y';\n",
        },
    )
    assert set(page_texts(build_bundle(root, tmp_path / "i1"))) == {"src/Mailer.php"}
    root = write_tree(
        tmp_path / "b",
        {
            "phpdoc.xml": v3,
            "lib/Mailer.php": mail,
            "lib/Internal/Pool.php": mail.replace("Mailer", "Pool"),
            "old/Old.php": mail.replace("Mailer", "Old"),
        },
    )
    assert set(page_texts(build_bundle(root, tmp_path / "i2"))) == {"lib/Mailer.php"}


def test_doctum_configuration_names_the_sources(tmp_path: Path) -> None:
    # Doctum's configuration is PHP building a Finder: its `in` folders less its `exclude`s.
    doctum = (
        "<?php\nuse Doctum\\Doctum;\nuse Symfony\\Component\\Finder\\Finder;\n\n"
        "$iterator = Finder::create()\n    ->files()\n    ->name('*.php')\n"
        "    ->exclude('Legacy')\n    ->in(__DIR__ . '/../lib');\n\n"
        "return new Doctum($iterator, ['title' => 'Acme']);\n"
    )
    cls = "<?php\nnamespace A;\n/** A thing. */\nclass Thing {}\n"
    root = write_tree(
        tmp_path / "a",
        {
            "scripts/doctum-config.php": doctum,
            "composer.json": '{"autoload": {"psr-4": {"A\\\\": "src/"}}}',
            "lib/Thing.php": cls,
            "lib/Legacy/Old.php": cls.replace("Thing", "Old"),
            "src/Other.php": cls.replace("Thing", "Other"),
        },
    )
    assert set(page_texts(build_bundle(root, tmp_path / "i"))) == {"lib/Thing.php"}


def test_php_without_a_library_is_no_page(tmp_path: Path) -> None:
    # A docs site's PHP snippets, and a composer.json that is no JSON: one line, no pages.
    docs = write_tree(
        tmp_path / "docs",
        {
            "index.md": "# Home\n",
            "examples/send.php": "<?php\n/** E. */\nclass Example {}\n",
        },
    )
    assert set(page_texts(build_bundle(docs, tmp_path / "i1"))) == {"index.md"}
    (docs / "composer.json").write_text("{not json", encoding="utf-8")
    built = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "i2")
    assert "composer.json: not JSON" in built.stderr and "Traceback" not in built.stderr
    assert set(page_texts(tmp_path / "i2")) == {"index.md"}


def test_folder_of_php_alone_says_what_reads_it(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "d", {"ex/a.php": "<?php\n/** E. */\nclass Example {}\n"})
    built = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "i", check=False)
    assert built.returncode != 0 and "Traceback" not in built.stderr
    assert "it holds 1 .php file (PHP is read as a library's API where a composer.json" in (
        built.stderr
    )


def test_lexer_reads_php_as_php_does() -> None:
    source = (
        "<h1>title { </h1><?php\n"
        "# a comment with { and ?> <p>html again }</p><?php\n"
        "#[Route('/a}', methods: ['GET'])]\n"
        "$a = 'it\\'s {'; $b = \"{$x['}']} ${y} \\\" {\";\n"
        "$c = <<<'EOT'\n  { nowdoc\n  EOT;\n"
        "$d = <<<\"EOT\"\n  { {$e} heredoc\n  EOT . '}';\n"
        "/** doc { */ // line {\n"
        "function f() {}\n?>tail {"
    )
    toks = tokens(source)
    kinds = [t.kind for t in toks]
    assert kinds.count("html") == 3
    assert [t.text for t in toks if t.kind == "attr"] == ["#[Route('/a}', methods: ['GET'])]"]
    assert [t.text for t in toks if t.kind == "doc"] == ["/** doc { */"]
    assert sum(t.kind == "op" and t.text in "{}" for t in toks) == 2  # (f's body alone)
    assert toks[-1] == ("html", "tail {", 12, len(source) - 6)
    assert all(a.start + len(a.text) <= b.start for a, b in zip(toks, toks[1:], strict=False))


def test_declarations_and_docblocks() -> None:
    unit = parse(
        "<?php\nnamespace A;\nuse B\\{C, D as E};\n"
        "$x = new class { public function hidden() {} };\n"
        "$k = Foo::class;\n"
        "abstract class Base extends E implements C, \\Countable {\n"
        "  final public const int|string MAX = 1, MIN = 0;\n"
        "  public ?int $a = null, $b;\n"
        "  public string $hooked { get => 'x'; }\n"
        "  abstract protected function &ref(array $x = [1, 2], E ...$rest): static;\n"
        "  public function fn(): \\Closure { return function () use ($x) { return 1; }; }\n"
        "}\n"
    )
    (base,) = unit.decls
    assert unit.uses == {"C": "B\\C", "E": "B\\D"}
    assert (base.kind, base.name, base.extends, base.implements) == (
        "class",
        "A\\Base",
        ("E",),
        ("C", "\\Countable"),
    )
    assert [(m.kind, m.name) for m in base.members] == [
        ("const", "MAX"),
        ("const", "MIN"),
        ("property", "$a"),
        ("property", "$b"),
        ("property", "$hooked"),
        ("method", "ref"),
        ("method", "fn"),
    ]
    ref = base.members[5]
    assert ref.by_ref and ref.returns == "static" and "abstract" in ref.modifiers
    assert [(p.type, p.name, p.default, p.variadic) for p in ref.params] == [
        ("array", "$x", "[1, 2]", False),
        ("E", "$rest", "", True),
    ]
    assert base.members[0].type == "int|string" and base.members[2].type == "?int"
    doc = phpdoc_tags.read(
        "/**\n * Summary line ends here.\n * More text.\n *\n * <code>\n * $a = 1;\n"
        " * </code>\n * @param array<string, int> $map The map,\n *   continued.\n"
        " * @psalm-param non-empty-array $map\n * @return static A copy {@inheritDoc}\n"
        " * @author Someone\n * @link http://x.test/y\n * @see Other::m()\n"
        ' * RFC {@see https://x.test/rfc}\n * @Event("a.b")\n */',
        lambda target, label: f"<{target}>",
    )
    assert doc.summary == "Summary line ends here."
    assert doc.description == ("More text.", "", "```php", "$a = 1;", "```")
    assert doc.params[0] == phpdoc_tags.Named("array<string, int>", "$map", "The map, continued.")
    assert doc.returns == ("static", "A copy")
    assert doc.inherit
    assert doc.see == (
        "[http://x.test/y](http://x.test/y)",
        "<Other::m()> RFC [https://x.test/rfc](https://x.test/rfc)",
    )


def test_files_without_declarations_convert_to_nothing() -> None:
    assert php_to_markdown("src/a.php", "<?php\nreturn ['a' => 1];\n").text == ""
    assert php_to_markdown("src/b.php", "<?php\n/** @internal */\nclass B {}\n").text == ""
    assert php_to_markdown("src/c.php", "<html><?= $x ?></html>").text == ""


_PIECES = [
    "'{'",
    '"}"',
    "\"{$a['}']}\"",
    "# {\n",
    "// }\n",
    "/* { */",
    "/** } */",
    "#[A('{')]",
    "<<<EOT\n{\nEOT;\n",
    "<<<'N'\n}\nN;\n",
    "?>{<?php ",
    "{",
    "}",
    "x",
    ";",
    "\n",
    "(",
    ")",
]


@FUZZ
@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_literals_and_comments_hide_their_braces(parts: list[str]) -> None:
    # A brace in a string, comment, attribute, heredoc or inline HTML is no token of its own,
    # and tokens never overlap.
    toks = tokens("<?php " + "".join(parts))
    assert all(a.start + len(a.text) <= b.start for a, b in zip(toks, toks[1:], strict=False))
    expected = sum(p in ("{", "}") for p in parts)
    assert sum(t.kind == "op" and t.text in "{}" for t in toks) == expected


@FUZZ
@given(
    st.text(
        alphabet="/*\"'{}()<>[]@$#;=,.:?\\\n abcpublicstaticfunctionclassenumtraitusecase<<<EOT",
        max_size=400,
    )
)
def test_reader_never_fails_on_any_text(text: str) -> None:
    page = php_to_markdown("src/A.php", "<?php\nnamespace N;\nclass A {\n" + text)
    assert isinstance(page.text, str)
    assert isinstance(phpdoc_tags.read("/**" + text, lambda t, label: t).summary, str)


def test_hostile_input_ends() -> None:
    deep = "<?php class A { public function f() {" + "{" * 20000 + "}" * 20000 + "} }"
    assert "## A::f()" in php_to_markdown("src/A.php", deep).text
    assert isinstance(php_to_markdown("src/A.php", '<?php $a = "' + "{$" * 20000).text, str)
    assert isinstance(php_to_markdown("src/A.php", "<?php " + "<<<A\n" * 5000).text, str)
    tokens("<?php " + "/*" * 20000 + "#[" * 5000 + "'" * 5001)
