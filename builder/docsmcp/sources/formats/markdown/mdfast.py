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
- Block rules are tried only on lines whose first character they can start with: each chain of
  rules (the main one and the terminator chains a paragraph, list, blockquote or table row
  checks on every following line) becomes one rule that looks up the line's first character
  and calls, in the chain's order, the rules that can match it. Every other rule would return
  False at once (after a logging call and an indentation check): a table row used to try six
  terminator rules, it now tries none. An enabled rule not known here leaves the chains as
  they are.
- The `normalize` core rule (two regex substitutions over the whole text: CR LF and CR to LF,
  NUL to U+FFFD) runs only on a text holding a CR or a NUL: on any other it changes nothing.
- Block tokens are made field by field (`_FastStateBlock.push`), not through `Token.__init__`
  and `__post_init__`: 616k tokens on speakeasy-sdks, most of them table cells.

`tests/test_mdfast.py` parses random documents with and without the fast paths and compares
every token, children included.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import types

from markdown_it import MarkdownIt
from markdown_it import rules_block as stock_block
from markdown_it.parser_block import ParserBlock
from markdown_it.rules_block.state_block import StateBlock
from markdown_it.rules_core import normalize as stock_normalize
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


# The first characters a line must start with for each block rule to match (markdown-it-py's
# rules_block: each returns False for any other character at `bMarks + tShift` before it does
# anything else); None: any line (table looks at the next line, code at the indentation).
_BLOCK_STARTS: dict[str, str | None] = {
    "table": None,
    "code": None,
    "fence": "~`",
    "blockquote": ">",
    "hr": "*-_",
    "list": "*-+0123456789",
    "reference": "[",
    "html_block": "<",
    "heading": "#",
    "lheading": None,
    "paragraph": None,
}
# The stock functions those start characters were read from (fence: `make_fence_rule()`'s
# default markers); a rule with start characters must be exactly that function.
_STOCK_BLOCK = {
    "fence": stock_block.fence,
    "blockquote": stock_block.blockquote,
    "hr": stock_block.hr,
    "list": stock_block.list_block,
    "reference": stock_block.reference,
    "html_block": stock_block.html_block,
    "heading": stock_block.heading,
}


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
_STOCK_PARSE = ParserBlock.parse


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


def _text_token(content: str) -> Token:
    """`Token("text", "", 0)` with `content`, made field by field (see `_copy`)."""
    c = _new_token(Token)
    c.type = "text"
    c.tag = ""
    c.nesting = 0
    c.attrs = {}
    c.map = None
    c.level = 0
    c.children = None
    c.content = content
    c.markup = ""
    c.info = ""
    c.meta = {}
    c.block = False
    c.hidden = False
    return c


def _stock_text_token(content: str) -> Token:
    text = Token("text", "", 0)
    text.content = content
    return text


class _FastStateBlock(StateBlock):
    """markdown-it-py's block state whose `push` makes the token field by field: the same
    token `StateBlock.push` makes (`Token(type, tag, nesting)`, `block` True, the level),
    without the dataclass's `__init__` and `__post_init__`."""

    def push(self, ttype: str, tag: str, nesting: int) -> Token:  # type: ignore[override]
        token = _new_token(Token)
        token.type = ttype
        token.tag = tag
        token.nesting = nesting  # type: ignore[assignment]
        token.attrs = {}
        token.map = None
        if nesting < 0:
            self.level -= 1  # closing tag
        token.level = self.level
        if nesting > 0:
            self.level += 1  # opening tag
        token.children = None
        token.content = ""
        token.markup = ""
        token.info = ""
        token.meta = {}
        token.block = True
        token.hidden = False
        self.tokens.append(token)
        return token


def _fast_block_parse(md: MarkdownIt):  # type: ignore[no-untyped-def]
    """`md.block.parse` on a `_FastStateBlock` (ParserBlock.parse makes a `StateBlock`)."""
    block = md.block

    def parse(src, md, env, outTokens):  # type: ignore[no-untyped-def]
        if not src:
            return None
        state = _FastStateBlock(src, md, env, outTokens)
        block.tokenize(state, state.line, state.lineMax)
        return state.tokens

    return parse


def _dispatch(rules: list[tuple[object, str | None]]):  # type: ignore[no-untyped-def]
    """One block rule doing what the chain `rules` (function, start characters) does: the
    first rule that matches wins, tried only among those that can start with the line's first
    character."""
    chars = {c for _, starts in rules if starts for c in starts}
    default = tuple(fn for fn, starts in rules if starts is None)
    by_char = {c: tuple(fn for fn, s in rules if s is None or c in s) for c in chars}
    get = by_char.get

    def rule(state, line, endLine, silent):  # type: ignore[no-untyped-def]
        pos = state.bMarks[line] + state.tShift[line]
        src = state.src
        for fn in get(src[pos] if pos < len(src) else "", default):
            if fn(state, line, endLine, silent):
                return True
        return False

    rule.chain = [fn for fn, _ in rules]  # type: ignore[attr-defined]
    return rule


def _dispatch_chains(md: MarkdownIt) -> dict[str, list] | None:  # type: ignore[type-arg]
    """Every chain of the block ruler as one dispatching rule, or None when a rule is not one
    whose start characters are known."""
    ruler = md.block.ruler
    names = {}
    for r in ruler.__rules__:
        if not r.enabled:
            continue
        if r.name not in _BLOCK_STARTS:
            log.debug("block rule %r is unknown: no dispatch by first character", r.name)
            return None
        if r.name in _STOCK_BLOCK and r.fn is not _STOCK_BLOCK[r.name]:
            return None
        names[id(r.fn)] = r.name
    ruler.getRules("")  # compiles the chains
    chains = {}
    for chain, fns in (ruler.__cache__ or {}).items():
        rules = [(fn, _BLOCK_STARTS[names[id(fn)]]) for fn in fns]
        chains[chain] = [_dispatch(rules)] if any(s for _, s in rules) else list(fns)
    return chains


def _fast_normalize(state: StateCore) -> None:
    """markdown-it-py's `normalize`, skipped on a text it would leave as it is."""
    src = state.src
    if "\r" in src or "\0" in src:
        stock_normalize(state)


def _fast_inline(plain: re.Pattern[str], memo_ok: bool):  # type: ignore[no-untyped-def]
    """The core `inline` rule: plain contents become one text token directly, others are
    parsed once per content (reference links: once per document) and copied."""
    memo: dict[str, list[Token]] = {}
    text_token = _text_token if memo_ok else _stock_text_token

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
                    token.children.append(text_token(content))
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
    """Give `md` the fast paths that apply to its configuration; returns it. Call it last: a
    later change to the block rules (`enable`, `disable`, ...) recompiles their chains without
    the dispatch (still correct, only slower)."""
    table = _fast_table(md)
    if table is not None:
        # `at` resets the chains a rule also serves (`alt`): keep them
        md.block.ruler.at("table", table, {"alt": list(_rule(md, "table").alt)})
    if _core_rule(md, "normalize") is stock_normalize:
        md.core.ruler.at("normalize", _fast_normalize)
    fields_ok = [f.name for f in dataclasses.fields(Token)] == _TOKEN_FIELDS
    plain = _plain_pattern(md)
    if plain is not None and "inline" in md.core.ruler.get_active_rules():
        md.core.ruler.at("inline", _fast_inline(plain, fields_ok))
    if fields_ok and type(md.block).parse is _STOCK_PARSE:
        md.block.parse = _fast_block_parse(md)  # type: ignore[method-assign]
    chains = _dispatch_chains(md)
    if chains is not None:
        # the ruler's compiled chains (what `getRules` returns), for this parser only
        md.block.ruler.__cache__ = chains
    return md


def _core_rule(md: MarkdownIt, name: str):  # type: ignore[no-untyped-def]
    """The function of the enabled core rule called `name`, else None."""
    return next((r.fn for r in md.core.ruler.__rules__ if r.name == name and r.enabled), None)


def _rule(md: MarkdownIt, name: str):  # type: ignore[no-untyped-def]
    """The block rule record (name, enabled, fn, alt) called `name`, else None."""
    return next((r for r in md.block.ruler.__rules__ if r.name == name), None)
