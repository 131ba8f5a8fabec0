"""PHP classes list what they inherit from classes of the tree, by the rule the other
languages' pages follow (phpDocumentor's inherited methods, properties and constants): a line
per parent of references to its sections, and an API entry per member named as the child's;
never a copy (formats/source/php_inherit.py, packages/php_inherit.py). Fixtures in monolog's
shape (`StreamHandler extends AbstractProcessingHandler extends AbstractHandler`)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle, page_texts, run_docsmcp, write_tree
from docsmcp.sources.formats.source.php_inherit import encode, split
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
abstract class AbstractProcessingHandler extends AbstractHandler
{
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
}
"""


def _tree(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "acme",
        {
            "composer.json": COMPOSER,
            "src/Handler/AbstractHandler.php": ABSTRACT,
            "src/Handler/StreamHandler.php": STREAM,
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
    # (the `extends` lines, and the names StreamHandler's page inherits from the other)
    assert refs["resolved"] == 6 and refs["resolved"] == refs["found"], refs


@given(st.text(max_size=200))
@FUZZ
def test_inherit_line_round_trips_and_never_fails(text: str) -> None:
    data = {text: [{"key": text, "members": [{"name": text}]}]}
    body, read = split("<?php\nclass A {}" + encode(data))
    assert body == "<?php\nclass A {}" and read == data
    split(text)  # (any text: no error)
