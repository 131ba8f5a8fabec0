"""Fast paths inside markdown-it-py's parse that give exactly the tokens it would give.

Profiled on speakeasy-sdks, the table rule's character-by-character `escapedSplit` was ~15 % of
a build and inline tokenizing ~20 %, most of it on cells and paragraphs that hold nothing but
plain text. Both fast paths keep markdown-it-py as the parser (../shared/DECISIONS.md,
*Parsing*): every link, emphasis and code span still goes through its inline rules.

- Table rows are split with `str.split` / one regex instead of a loop over characters
  (`escaped_split`, the same result as markdown-it-py's `escapedSplit`, fuzzed against it). The
  table rule itself is markdown-it-py's own function object, rebound to this helper: nothing of
  the library is copied or patched for other users.
- An inline token whose content holds none of the characters that start an enabled inline rule
  gets the single text token the inline parser would make, without running it. Which
  characters those are is derived from the parser's enabled rules; an enabled rule not known
  here turns the fast path off rather than guessing.

`tests/test_mdfast.py` parses random documents with and without the fast paths and compares
every token, children included.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import types

from markdown_it import MarkdownIt
from markdown_it.rules_core.state_core import StateCore
from markdown_it.token import Token

log = logging.getLogger(__name__)

_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")

# Characters at which each inline rule can start (markdown-it-py's rules_inline). `text` is the
# fallback that takes every other character; `linkify` acts only with the linkify option on.
_RULE_STARTS = {
    "text": "",
    "newline": "\n",
    "escape": "\\",
    "backticks": "`",
    "strikethrough": "~",
    "emphasis": "*_",
    "link": "[",
    "image": "!",
    "autolink": "<",
    "html_inline": "<",
    "entity": "&",
}
# Post-processing rules that only act on delimiters or special text tokens: with no start
# character in the content there are none.
_PLAIN_POST_RULES = {"balance_pairs", "strikethrough", "emphasis", "fragments_join", "text_join"}


def escaped_split(line: str) -> list[str]:
    """A table row's cells: split at every `|` not right after a backslash; `\\|` becomes `|`
    (markdown-it-py's `escapedSplit`, without a loop over characters)."""
    if "\\" not in line:
        return line.split("|")
    return [part.replace("\\|", "|") for part in _UNESCAPED_PIPE.split(line)]


def _plain_pattern(md: MarkdownIt) -> re.Pattern[str] | None:
    """A regex finding any character that could start an enabled inline rule, or None when an
    enabled rule is not one whose start characters are known (then no fast path)."""
    starts = set()
    for name in md.inline.ruler.get_active_rules():
        if name == "linkify" and not md.options.get("linkify"):
            continue
        if name not in _RULE_STARTS:
            log.debug("inline rule %r is unknown: no plain-text fast path", name)
            return None
        starts.update(_RULE_STARTS[name])
    if not set(md.inline.ruler2.get_active_rules()) <= _PLAIN_POST_RULES:
        return None
    return re.compile("[" + re.escape("".join(sorted(starts))) + "]")


# Inline results remembered per parser, by content: table cells repeat (`*string*`,
# `:heavy_check_mark:` are 30 % of speakeasy-sdks' non-plain cells; 12k distinct of 82k).
# 8,192, not 50,000: speakeasy-sdks parses 13.6k contents instead of 12.6k, and a win32 worker
# stays ~130 MB smaller (the memo's token lists were the largest thing a worker held).
MEMO_SIZE = 8192
_TOKEN_FIELDS = (
    "type tag nesting attrs map level children content markup info meta block hidden".split()
)


_new_token = object.__new__


def _copy(t: Token) -> Token:
    """A token no other token shares anything mutable with (later core rules edit tokens).
    Made field by field, not through `Token(...)`: the dataclass's `__init__` and
    `__post_init__` were ~60 % of copying, which was ~9 % of a win32 worker's time (the memo
    copies each remembered token out). Which fields a token has is checked (`_TOKEN_FIELDS`)
    before the memo is used at all."""
    c = _new_token(Token)
    c.type = t.type
    c.tag = t.tag
    c.nesting = t.nesting
    c.attrs = dict(t.attrs)
    c.map = list(t.map) if t.map is not None else None
    c.level = t.level
    c.children = [_copy(x) for x in t.children] if t.children is not None else None
    c.content = t.content
    c.markup = t.markup
    c.info = t.info
    c.meta = dict(t.meta)
    c.block = t.block
    c.hidden = t.hidden
    return c


def _fast_inline(plain: re.Pattern[str], memo_ok: bool):  # type: ignore[no-untyped-def]
    """The core `inline` rule: plain contents become one text token directly, others are
    parsed once per content (reference links: once per document) and copied."""
    memo: dict[str, list[Token]] = {}

    def inline(state: StateCore) -> None:
        md = state.md
        # A `[...]` may be a reference link only when the document defines references.
        refs = bool(state.env.get("references")) if hasattr(state.env, "get") else True
        for token in state.tokens:
            if token.type != "inline":
                continue
            if token.children is None:
                token.children = []
            content = token.content
            if plain.search(content) is None:
                if content:  # what the inline parser's pending text would become
                    text = Token("text", "", 0)
                    text.content = content
                    token.children.append(text)
            elif not memo_ok or token.children or (refs and "[" in content):
                md.inline.parse(content, md, state.env, token.children)
            elif (stored := memo.get(content)) is not None:
                token.children.extend(_copy(t) for t in stored)
            else:
                md.inline.parse(content, md, state.env, token.children)
                if len(memo) >= MEMO_SIZE:
                    memo.clear()
                memo[content] = [_copy(t) for t in token.children]

    return inline


def _fast_table(md: MarkdownIt):  # type: ignore[no-untyped-def]
    """markdown-it-py's table rule calling `escaped_split`, or None if its shape is unknown."""
    fn = getattr(_rule(md, "table"), "fn", None)
    if not isinstance(fn, types.FunctionType) or "escapedSplit" not in fn.__code__.co_names:
        return None
    globals_ = {**fn.__globals__, "escapedSplit": escaped_split}
    return types.FunctionType(fn.__code__, globals_, fn.__name__, fn.__defaults__, fn.__closure__)


def install(md: MarkdownIt) -> MarkdownIt:
    """Give `md` the fast paths that apply to its configuration; returns it."""
    table = _fast_table(md)
    if table is not None:
        # `at` resets the chains a rule also serves (`alt`): keep them
        md.block.ruler.at("table", table, {"alt": list(_rule(md, "table").alt)})
    plain = _plain_pattern(md)
    if plain is not None and "inline" in md.core.ruler.get_active_rules():
        memo_ok = [f.name for f in dataclasses.fields(Token)] == _TOKEN_FIELDS
        md.core.ruler.at("inline", _fast_inline(plain, memo_ok))
    return md


def _rule(md: MarkdownIt, name: str):  # type: ignore[no-untyped-def]
    """The block rule record (name, enabled, fn, alt) called `name`, else None."""
    return next((r for r in md.block.ruler.__rules__ if r.name == name), None)
