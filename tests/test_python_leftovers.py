"""What Python libraries' docs show and docsmcp read badly (issue 27, session 17): pdoc's
instance attributes and a class's `Attributes:` items as members, `__all__` built by code,
namespace packages (PEP 420) a configuration names, a mkdocstrings directive's own `options:`
block, napoleon's `Attributes:` as attribute objects and `napoleon_custom_sections`. The
fixtures are small trees in the shape of python-fire (Google `Attributes:`), numpy's
`__init__.py` (`__all__ += core.__all__`), a `jaraco.functools`-like namespace package, pydantic's
`api/*.md` (`::: pydantic.fields` + `options: members:`) and Sphinx projects with napoleon."""

from __future__ import annotations

import ast
from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle, page_texts
from docsmcp.sources.files import source_roots
from docsmcp.sources.formats.rst import napoleon
from docsmcp.sources.formats.source import apidoc, mkdocstrings_options
from docsmcp.sources.packages.python_package import modules
from hypothesis import given
from hypothesis import strategies as st


def _write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


def _entries(bundle: Path) -> dict[str, dict]:
    return {r["name"]: r for r in pq.read_table(bundle / "api.parquet").to_pylist()}


WIDGETS = '''"""Widgets."""


class Widget:
    """A widget on the screen.

    Attributes:
        color (str): The widget's color name.
        depth: How deep it sits.
        _cache: Private state.
    """

    depth: int = 0

    def __init__(self, size: int) -> None:
        self.size: int = size
        """The widget's size in pixels."""
        if size > 10:
            self.label = "big"
            """What the widget shows."""
        self.hidden = False
        self._secret = 1
        """Not shown."""

    def draw(self) -> None:
        """Draw it."""
'''

INIT = '''"""Acme widgets."""

from . import widgets
from .widgets import Widget

__all__ = ["Widget"] + widgets.__all__
__all__ += ["make"]


def make() -> "Widget":
    """Make a widget."""


def helper() -> None:
    """Not in __all__."""
'''


def test_pdoc_instance_attributes_and_attributes_sections_are_members(tmp_path: Path) -> None:
    """pdoc shows `self.size: int` and `self.label` with a docstring under it as the class's
    members; a class's `Attributes:` items are members too (napoleon's attribute objects), a
    private item stays in the text; `__all__ += [...]` and `+ widgets.__all__` are read."""
    repo = _write(
        tmp_path / "acme",
        {
            "pyproject.toml": '[project]\nname = "acme"\n',
            "README.md": "# Acme\n\nWidgets.\n",
            "acme/__init__.py": INIT,
            "acme/widgets.py": WIDGETS + '\n__all__ = ["Widget", "spin"]\n\n\n'
            'def spin() -> None:\n    """Spin."""\n',
        },
    )
    out = build_bundle(repo, tmp_path / "idx")
    entries = _entries(out)
    for name, description in (
        ("acme.Widget.color", "The widget's color name."),
        ("acme.Widget.depth", "How deep it sits."),
        ("acme.Widget.size", "The widget's size in pixels."),
        ("acme.Widget.label", "What the widget shows."),
    ):
        assert entries[name]["kind"] == "attribute", name
        assert entries[name]["description"] == description
    assert entries["acme.Widget.color"]["signature"] == "color: str"
    assert entries["acme.Widget.size"]["signature"] == "size: int"
    assert not {"acme.Widget.hidden", "acme.Widget._secret", "acme.Widget._cache"} & set(entries)
    assert "acme.make" in entries and "acme.helper" not in entries  # (`__all__ += ["make"]`)
    text = page_texts(out)["acme/widgets.py"]
    assert "### Widget.color" in text and "### Widget.size" in text
    assert "The widget's color name." in text.split("### Widget.color")[1]
    assert "**\\_cache** – Private state." in text  # (left in the class's text, a list)
    assert text.index("### Widget.color") < text.index("### Widget.draw")


def test_all_names_is_read_as_far_as_it_is_static() -> None:
    def names(source: str, resolve=None) -> set[str] | None:
        return apidoc.all_names(ast.parse(source), resolve)

    assert names('__all__ = ["a"]\n__all__ += ["b"]\n__all__.append("c")') == {"a", "b", "c"}
    assert names('__all__ = ("a",) + core.__all__') == {"a"}
    assert names('__all__ = ["a"] + core.__all__', lambda m: {"x"} if m == "core" else None) == {
        "a",
        "x",
    }
    assert names('base = ["q"]\n__all__ = base + ["a"]\n__all__.extend(["d"])') == {"q", "a", "d"}
    assert names("__all__ = [x for x in dir() if x[0] != '_']") is None
    assert names('__all__ = ["a"]\n__all__ += make()') is None
    assert names("x = 1") is None


def _pages(root: Path) -> dict[str, str]:
    listed = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
    return modules(root, source_roots(root), listed).pages


MODULE = '"""A module."""\n\n\ndef run():\n    """Run."""\n'


def test_namespace_packages_a_configuration_names(tmp_path: Path) -> None:
    """`acme/widgets/__init__.py` under a bare `acme/` (PEP 420) is `acme.widgets` where the
    configuration finds or names it; a bare folder without a package below is none."""
    pages = {
        "acme/widgets/__init__.py": "acme.widgets",
        "acme/widgets/gears.py": "acme.widgets.gears",
    }
    tree = {
        "acme/widgets/__init__.py": MODULE,
        "acme/widgets/gears.py": MODULE,
        "acme/data/readme.txt": "data\n",
        "docs/conf.py": "project = 'x'\n",
    }
    found = _write(
        tmp_path / "find",
        {
            **tree,
            "pyproject.toml": '[project]\nname = "acme.widgets"\n'
            '[tool.setuptools.packages.find]\ninclude = ["acme*"]\n',
        },
    )
    assert _pages(found) == pages
    listed = _write(
        tmp_path / "listed",
        {
            **tree,
            "pyproject.toml": '[project]\nname = "x"\n'
            '[tool.setuptools]\npackages = ["acme.widgets"]\n',
        },
    )
    assert _pages(listed) == pages
    cfg = _write(
        tmp_path / "cfg",
        {**tree, "setup.cfg": "[metadata]\nname = x\n[options]\npackages = find_namespace:\n"},
    )
    assert _pages(cfg) == pages
    no_namespaces = _write(
        tmp_path / "plain",
        {**tree, "setup.cfg": "[metadata]\nname = x\n[options]\npackages = find:\n"},
    )
    assert _pages(no_namespaces) == {}
    hatch = _write(
        tmp_path / "hatch",
        {
            **{f"src/{k}": v for k, v in tree.items()},
            "pyproject.toml": '[project]\nname = "acme-widgets"\n'
            '[tool.hatch.build.targets.wheel]\npackages = ["src/acme"]\n',
        },
    )
    assert _pages(hatch) == {f"src/{k}": v for k, v in pages.items()}
    src = _write(
        tmp_path / "src",
        {**{f"src/{k}": v for k, v in tree.items()}, "pyproject.toml": '[project]\nname = "x"\n'},
    )
    assert _pages(src) == {f"src/{k}": v for k, v in pages.items()}
    # the flat layout's bare folders are no packages without a configuration naming them
    flat = _write(tmp_path / "flat", {**tree, "pyproject.toml": '[project]\nname = "x"\n'})
    assert _pages(flat) == {}


CART = '''"""Carts."""


class Cart:
    """A cart.

    Args:
        owner: Who owns it.
    """

    currency: str = "EUR"
    """The cart's currency."""

    def __init__(self, owner: str) -> None:
        """Make a cart."""

    def add(self, item: str) -> None:
        """Add an item."""

    def clear(self) -> None:
        """Empty it."""


def checkout(cart: Cart) -> int:
    """Pay.

    Parameters
    ----------
    cart : Cart
        The cart to pay.
    """


def _internal() -> None:
    """Private."""
'''

API_PAGE = """# API

## Carts

::: shop.cart.Cart
    options:
      heading_level: 3
      merge_init_into_class: false
      members:
        - currency
        - __init__
        - clear

## Paying

::: shop.cart.checkout
    options:
        heading_level: 3
        docstring_style: numpy

## All

::: shop.cart
    options:
      filters: ["^_"

```markdown
::: shop.cart.Cart
    options:
      members: [add]
```
"""


def test_a_mkdocstrings_directives_own_options(tmp_path: Path) -> None:
    """pydantic's `api/*.md` shape: `members` (in its order, an attribute and `__init__`),
    `heading_level`, `merge_init_into_class` and `docstring_style` per directive over the
    site's; `filters`; a block that is no YAML keeps the site's options; an example in code
    stays code."""
    repo = _write(
        tmp_path / "shop",
        {
            "mkdocs.yml": "site_name: Shop\nplugins:\n  - mkdocstrings:\n      handlers:\n"
            "        python:\n          options:\n            merge_init_into_class: true\n",
            "docs/api.md": API_PAGE,
            "src/shop/__init__.py": '"""The shop."""\n',
            "src/shop/cart.py": CART,
        },
    )
    out = build_bundle(repo / "docs", tmp_path / "idx", "--api-source", repo / "src")
    text = page_texts(out)["api.md"]
    carts = text.split("## Carts")[1].split("## Paying")[0]
    assert "### `shop.cart.Cart`" in carts
    order = [carts.index(f"#### `shop.cart.Cart.{m}`") for m in ("currency", "__init__", "clear")]
    assert order == sorted(order)
    assert "shop.cart.Cart.add" not in carts
    assert "currency: str = 'EUR'" in carts and "The cart's currency." in carts
    paying = text.split("## Paying")[1].split("## All")[0]
    assert "### `shop.cart.checkout`" in paying
    assert "| `cart` | `Cart` | The cart to pay. | *required* |" in paying
    everything = text.split("## All")[1]
    assert "## `shop.cart`" in everything  # (the site's options: heading level 2)
    assert "shop.cart._internal" not in everything
    assert "members: [add]" in everything  # (the example in a code block, as written)
    names = set(_entries(out))
    assert {"shop.cart.Cart", "shop.cart.Cart.clear", "shop.cart.checkout"} <= names


def test_directive_options_filters() -> None:
    chosen = mkdocstrings_options.selection({"filters": ["!^_", "^c"], "heading_level": 4})
    assert chosen.heading_level == 4 and chosen.members is None
    assert mkdocstrings_options.keep("clear", chosen.filters)
    assert not mkdocstrings_options.keep("_hidden", chosen.filters)
    assert mkdocstrings_options.keep("add", chosen.filters)  # (no match, both kinds: kept)
    only = mkdocstrings_options.selection({"filters": ["^c"]}).filters
    assert not mkdocstrings_options.keep("add", only)  # (only includes: no match is out)
    assert mkdocstrings_options.selection({"members": False}).members == ()
    assert mkdocstrings_options.selection({"heading_level": "x", "filters": ["("]}) == (
        mkdocstrings_options.Selection(filters=())
    )


KITE = '''"""Flying kites."""


class Kite:
    """A kite in the air.

    Attributes:
        height (int): How high it flies, in metres.
        color: Its color.

    Events:
        lifted (float): Sent when it lifts off.

    Tests:
        Flown in the park.
    """

    def fly(self, wind: float) -> bool:
        """Fly it.

        Params:
            wind: Wind speed in m/s.
        """

    @property
    def color(self) -> str:
        """The color it was painted.

        Returns:
            str: A color name.
        """
'''


def test_napoleon_attributes_are_objects_and_custom_sections_are_read(tmp_path: Path) -> None:
    """Sphinx + napoleon: `Attributes:` items are the class's attribute entries; conf.py's
    `napoleon_custom_sections` make `Params:` parameters, `Events:` a list and `Tests:` a
    rubric; with `napoleon_use_ivar = True` the attributes are `:ivar:` fields instead."""
    conf = (
        'project = "kite"\nextensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]\n'
        'napoleon_custom_sections = [("Params", "Parameters"), "Tests",'
        ' ("Events", "params_style")]\n'
    )
    repo = _write(
        tmp_path / "kite",
        {
            "docs/conf.py": conf,
            "docs/index.rst": "Kite\n====\n\n.. automodule:: kite.flight\n   :members:\n",
            "src/kite/__init__.py": "",
            "src/kite/flight.py": KITE,
        },
    )
    out = build_bundle(repo / "docs", tmp_path / "idx", "--api-source", repo / "src")
    entries = _entries(out)
    assert entries["kite.flight.Kite.height"]["kind"] == "attribute"
    assert entries["kite.flight.Kite.height"]["description"] == "How high it flies, in metres."
    # (rich's `Segment.cell_length`: an item naming a property keeps the property's entry)
    names = [r["name"] for r in pq.read_table(out / "api.parquet").to_pylist()]
    assert names.count("kite.flight.Kite.color") == 1
    assert "A color name" in entries["kite.flight.Kite.color"]["returns"]
    fly = entries["kite.flight.Kite.fly"]
    assert '"name": "wind"' in fly["parameters"] and "Wind speed" in fly["parameters"]
    text = page_texts(out)["index.rst"]
    assert "Events" in text and "**lifted** (float) – Sent when it lifts off." in text
    assert "Tests:" not in text and "Flown in the park." in text
    (repo / "docs/conf.py").write_text(conf + "napoleon_use_ivar = True\n", encoding="utf-8")
    out = build_bundle(repo / "docs", tmp_path / "idx2", "--api-source", repo / "src")
    assert "kite.flight.Kite.height" not in _entries(out)
    assert "height" in page_texts(out)["index.rst"]


def test_custom_sections_from_conf_py() -> None:
    conf = (
        'napoleon_custom_sections = ["Tests", ("Test", "Tests"), ("Params", "Args"),'
        ' ("R", "returns_style"), 3]'
    )
    assert dict(napoleon.custom_sections(conf)) == {
        "tests": "generic",
        "test": "generic",
        "params": "params",
        "r": "returns_style",
    }
    assert napoleon.custom_sections("napoleon_custom_sections = make()") == ()
    assert napoleon.custom_sections("napoleon_custom_sections = [") == ()


_PART = st.sampled_from(
    [
        '["a", "b"]',
        '("c",)',
        "core.__all__",
        "__all__",
        "base",
        "[x for x in y]",
        "f()",
        '"s"',
        "[1]",
        "pkg.mod.__all__",
    ]
)


@FUZZ
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["__all__ = ", "__all__ += ", "__all__.extend(", "base = "]),
            st.lists(_PART, min_size=1, max_size=4),
        ),  # fmt: skip
        max_size=6,
    )
)
def test_any_all_expression_is_read_without_raising(statements) -> None:
    """Bounded property: any mix of the shapes `__all__` is built with reads without raising,
    as a set of strings or None; a literal list alone reads as its names."""
    lines = []
    for head, parts in statements:
        expr = " + ".join(parts)
        lines.append(head + expr + (")" if head.endswith("(") else ""))
    tree = ast.parse("\n".join(lines))
    found = apidoc.all_names(tree, lambda m: {"z"} if m == "core" else None)
    assert found is None or all(isinstance(x, str) for x in found)
    assert apidoc.all_names(ast.parse('__all__ = ["a", "b"]')) == {"a", "b"}


@FUZZ
@given(st.text(alphabet=st.sampled_from(list(" \t\n:-[]{}!#'\"abx_0")), max_size=200))
def test_any_options_block_and_conf_is_read_without_raising(text: str) -> None:
    """Bounded property: any indented text under a directive reads as a mapping (or no block),
    any selection of it is valid, and any conf.py text gives custom sections or none."""
    lines = ["::: pkg.mod", *("    " + x for x in text.split("\n"))]
    found = mkdocstrings_options.block(lines, 0)
    if found is not None:
        end, options = found
        assert 0 < end < len(lines) and isinstance(options, dict)
        chosen = mkdocstrings_options.selection(options)
        assert 1 <= chosen.heading_level <= 6
    assert isinstance(napoleon.custom_sections("napoleon_custom_sections = " + text), tuple)
