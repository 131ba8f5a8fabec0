"""PHP classes list what they inherit from classes and traits of the tree, by the rule the
other languages' pages follow (phpDocumentor's inherited methods, properties and constants): a
line per parent of references to its sections, and an API entry per member named as the
child's; never a copy. A member without a docblock or saying `{@inheritDoc}` shows its
parent's text (formats/source/php_inherit.py, packages/php_inherit.py). Fixtures in monolog's
shape (`StreamHandler extends AbstractProcessingHandler extends AbstractHandler`, which uses
`ProcessableHandlerTrait` and implements `HandlerInterface`)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle, page_texts, run_docsmcp, write_tree
from docsmcp.sources.formats.source.php_inherit import encode, inherited, split
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

COMPOSER = '{"name": "acme/log", "autoload": {"psr-4": {"Acme\\\\Log\\\\": "src/"}}}\n'

ABSTRACT = """<?php declare(strict_types=1);

namespace Acme\\Log\\Handler;

/**
 * Base Handler class providing basic level/bubble support
 */
abstract class AbstractHandler
{
    /**
     * Gets the minimum logging level at which this handler will be triggered.
     */
    public function getLevel(): int
    {
        return 0;
    }

    /**
     * Sets the bubbling behavior.
     *
     * @param bool $bubble true means that this handler allows bubbling.
     */
    public function setBubble(bool $bubble): self
    {
        return $this;
    }

    private function secret(): void
    {
    }
}

/**
 * Base Handler class providing the Handler structure, including processors and formatters
 */
abstract class AbstractProcessingHandler extends AbstractHandler implements HandlerInterface
{
    use ProcessableHandlerTrait;

    /**
     * Sets the formatter.
     */
    public function setFormatter(FormatterInterface $formatter): self
    {
        return $this;
    }
}
"""

STREAM = """<?php declare(strict_types=1);

namespace Acme\\Log\\Handler;

/**
 * Stores to any stream resource
 */
class StreamHandler extends AbstractProcessingHandler
{
    /**
     * Return the stream URL if it was configured.
     */
    public function getUrl(): ?string
    {
        return null;
    }

    public function getLevel(): int
    {
        return 1;
    }

    /**
     * @inheritDoc
     */
    public function close(): void
    {
    }

    /**
     * {@inheritDoc}
     *
     * The stream is flushed after each record.
     */
    public function handle(array $record): bool
    {
        return true;
    }
}
"""

TRAIT = """<?php declare(strict_types=1);

namespace Acme\\Log\\Handler;

/**
 * Helper trait for implementing ProcessableInterface
 */
trait ProcessableHandlerTrait
{
    /**
     * Adds a processor in the stack.
     */
    public function pushProcessor(callable $callback): self
    {
        return $this;
    }

    /**
     * @inheritDoc
     */
    public function popProcessor(): callable
    {
        return fn () => null;
    }
}
"""

INTERFACE = """<?php declare(strict_types=1);

namespace Acme\\Log\\Handler;

/**
 * Interface that all Monolog Handlers must implement
 */
interface HandlerInterface
{
    /**
     * Handles a record.
     *
     * All records may be passed to this method, and the handler should discard
     * those that it does not want to handle.
     *
     * @param  array $record The record to handle
     * @return bool  true means that this handler handled the record
     */
    public function handle(array $record): bool;

    /**
     * Closes the handler.
     */
    public function close(): void;

    /**
     * Removes the processor on top of the stack and returns it.
     */
    public function popProcessor(): callable;
}
"""


def _tree(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "acme",
        {
            "composer.json": COMPOSER,
            "src/Handler/AbstractHandler.php": ABSTRACT,
            "src/Handler/StreamHandler.php": STREAM,
            "src/Handler/ProcessableHandlerTrait.php": TRAIT,
            "src/Handler/HandlerInterface.php": INTERFACE,
        },
    )


def test_a_class_lists_what_it_inherits_as_references(tmp_path: Path) -> None:
    out = build_bundle(_tree(tmp_path), tmp_path / "idx")
    pages = page_texts(out)
    stream = pages["src/Handler/StreamHandler.php"]
    # A line per parent, nearest first; its own getLevel() stays its own; no copy.
    assert "**Inherited from `AbstractProcessingHandler`:** `setFormatter()`" in stream
    assert "**Inherited from `AbstractHandler`:** `setBubble()`" in stream
    assert "Sets the bubbling behavior." not in stream and "secret" not in stream
    # A parent on the same page: a link to its section.
    abstract = pages["src/Handler/AbstractHandler.php"]
    assert "**Inherited from `AbstractHandler`:** [`getLevel()`](#" in abstract
    api = ApiRegistry(open_bundle(out))
    (found,) = [api.spec(i) for i in api.lookup("StreamHandler::setBubble")]
    assert found["name"] == "Acme\\Log\\Handler\\StreamHandler::setBubble"
    assert found["signature"].startswith("public function setBubble(bool $bubble)")
    assert found["description"] == "Sets the bubbling behavior."
    (own,) = [api.spec(i) for i in api.lookup("StreamHandler::getLevel")]
    assert own["signature"] == "public function getLevel(): int"
    # (without a docblock it shows its parent's, as phpDocumentor inherits it)
    assert own["description"].startswith("Gets the minimum logging level")
    # Same page: the child's entry is the parent's own section.
    rows = pq.read_table(out / "api.parquet").to_pylist()
    by = {r["name"]: r for r in rows}
    child = by["Acme\\Log\\Handler\\AbstractProcessingHandler::getLevel"]
    base = by["Acme\\Log\\Handler\\AbstractHandler::getLevel"]
    same = ("row", "line_start", "line_end")
    assert [child[k] for k in same] == [base[k] for k in same]


def test_the_line_refers_to_the_parents_sections(tmp_path: Path) -> None:
    built = run_docsmcp("build", "--docs-dir", _tree(tmp_path), "--out", tmp_path / "i", "--json")
    refs = json.loads(built.stdout)["references"]
    # (the `extends`/`implements` lines, the names StreamHandler's page inherits from the
    # other pages, and where its inherited docblocks come from)
    assert refs["resolved"] == 15 and refs["resolved"] == refs["found"], refs


def test_a_traits_members_are_listed_in_each_class_that_uses_it(tmp_path: Path) -> None:
    out = build_bundle(_tree(tmp_path), tmp_path / "idx")
    pages = page_texts(out)
    # The class that uses it and the class that extends that one; the trait's text stays home.
    assert (
        "**From trait `ProcessableHandlerTrait`:** `pushProcessor()`"
        in pages["src/Handler/AbstractHandler.php"]
    )
    stream = pages["src/Handler/StreamHandler.php"]
    assert "**From trait `ProcessableHandlerTrait`:** `pushProcessor()`, `popProcessor()`" in stream
    assert "Adds a processor in the stack." not in stream
    api = ApiRegistry(open_bundle(out))
    (found,) = [api.spec(i) for i in api.lookup("StreamHandler::pushProcessor")]
    assert found["name"] == "Acme\\Log\\Handler\\StreamHandler::pushProcessor"
    assert found["description"] == "Adds a processor in the stack."
    # (the trait's `@inheritDoc` names no interface; the class implements the one it means)
    (pop,) = [api.spec(i) for i in api.lookup("StreamHandler::popProcessor")]
    assert pop["description"] == "Removes the processor on top of the stack and returns it."


def test_inherit_doc_shows_the_parents_text(tmp_path: Path) -> None:
    out = build_bundle(_tree(tmp_path), tmp_path / "idx")
    stream = page_texts(out)["src/Handler/StreamHandler.php"]
    close = stream.split("## StreamHandler::close()", 1)[1].split("## ", 1)[0]
    # `@inheritDoc` alone: the interface's whole text (through the parent class)
    assert "*Documentation from `HandlerInterface::close()`.*" in close
    assert "Closes the handler." in close and "{@inheritDoc}" not in close
    handle = stream.split("## StreamHandler::handle()", 1)[1].split("## ", 1)[0]
    # inline, with text of its own: the parent's text in the tag's place, its own after it;
    # the parameters and return it does not document are the parent's
    said = handle.index("Handles a record.")
    assert said < handle.index("those that it does not want") < handle.index("is flushed after")
    assert "The record to handle" in handle and "handled the record" in handle
    api = ApiRegistry(open_bundle(out))
    (found,) = [api.spec(i) for i in api.lookup("StreamHandler::handle")]
    assert found["description"] == "Handles a record."


@given(st.text(max_size=200))
@FUZZ
def test_inherit_line_round_trips_and_never_fails(text: str) -> None:
    data = {text: [{"key": text, "members": [{"name": text}]}]}
    docs = {text: {text: {"from": text, "doc": text}}}
    body, read, read_docs = split("<?php\nclass A {}" + encode(data, docs))
    assert body == "<?php\nclass A {}" and read == data and read_docs == docs
    split(text)  # (any text: no error)
    inherited(text, {"from": "A::b", "doc": text}, lambda t, label: label or t)
