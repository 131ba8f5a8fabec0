"""The fence-language normaliser shared by the builder and the runtime."""

from __future__ import annotations

import pytest
from docsmcp_runtime.search.languages import LANGUAGE_ALIASES, normalise_language


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        ("ts", "typescript"),
        ("tsx", "typescript"),
        ("TypeScript", "typescript"),
        ("js", "javascript"),
        ("jsx", "javascript"),
        ("mjs", "javascript"),
        ("cjs", "javascript"),
        ("node", "javascript"),
        ("py", "python"),
        ("python3", "python"),
        ("sh", "bash"),
        ("shell", "bash"),
        ("zsh", "bash"),
        ("console", "bash"),
        ("shell-session", "bash"),
        ("golang", "go"),
        ("rb", "ruby"),
        ("rs", "rust"),
        ("php", "php"),
        ("java", "java"),
        ("kt", "kotlin"),
        ("cs", "csharp"),
        ("c#", "csharp"),
        ("c++", "cpp"),
        ("cc", "cpp"),
        ("yml", "yaml"),
        ("jsonc", "json"),
        ("json5", "json"),
        ("html", "html"),
        ("css", "css"),
        ("sql", "sql"),
        ("toml", "toml"),
        ("txt", "text"),
        ("plaintext", "text"),
        ("md", "markdown"),
        ("mdx", "markdown"),
        ("", ""),
        ("   ", ""),
    ],
)
def test_aliases(info: str, expected: str) -> None:
    assert normalise_language(info) == expected


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        ('tsx title="src/App.tsx" {1,3-4}', "typescript"),
        ("python {linenos=true}", "python"),
        ("js showLineNumbers", "javascript"),
        ("{.python .numberLines}", "python"),
        ('title="no-language.txt"', ""),
        ("{1,3}", ""),
        ("js:title=example.js", "javascript"),
        ("Mermaid", "mermaid"),
        ("solidity", "solidity"),
        ("language-ts", "typescript"),
    ],
)
def test_fence_info_strings(info: str, expected: str) -> None:
    """Attributes, titles and options around the language are ignored; unknown languages are
    kept as their lowercased first word."""
    assert normalise_language(info) == expected


def test_alias_table_is_consistent() -> None:
    seen: dict[str, str] = {}
    for name, aliases in LANGUAGE_ALIASES.items():
        assert name == name.lower()
        assert normalise_language(name) == name
        for alias in aliases:
            assert alias not in seen or seen[alias] == name, alias
            seen[alias] = name
            assert normalise_language(alias) == name
            assert normalise_language(alias.upper()) == name


def test_a_huge_info_string_costs_what_a_short_one_does() -> None:
    """(issue 31: a 200 KB `<code class="language-xxxx…">` took 94 s in the attribute
    pattern, quadratic in the string; the language is read from its first 256 characters)"""
    import time

    started = time.process_time()
    assert normalise_language("x" * 200_000) == "x" * 256
    assert normalise_language("python " + "y" * 200_000) == "python"
    assert time.process_time() - started < 1  # (milliseconds; 5 s for 50 KB before)
