"""Entry names: the terms that say which chunk defines the API entry a query names exactly.

BM25F cannot tell the chunk that defines `JsonReader` from the chunks of its members: every
member's heading (`JsonReader.peek`), trail and name hold the class's name too, and a short
member chunk saturates it sooner than the class's long one, so a search for "JsonReader" put the
constructor and 19 methods above the class. The builder therefore adds to the `anchors` field of
each chunk that defines an entry one term per name a reader may type for it (`entry_terms`):
the entry's full name (`com.google.gson.stream.JsonReader`), its last two parts
(`JsonReader.peek`, `Router::nest`) and its last part (`JsonReader`, `peek`), case kept, call
parentheses and an Elixir arity dropped, each as MARK, a byte no analysed term holds, and
a digest of the name (`_term`: 9 bytes where `com.google.gson.stream.JsonReader` took 33; the
keys were 7 % of jsoup's bundle written out) (bundle-spec.md, *Full-text index*, entry-name
terms). A query that is one such name
(`query_term`: one word, backticks and `()` allowed around it) also searches that term, so the
entry it names gains its impact; so does a name with kind words ("JsonReader class", "the
Router struct") and two or three plain words that join to a name in camel case ("Flag
inversion" for `FlagInversion`, "add days" for `addDays`, "create an issue" for `createIssue`:
articles name nothing) where the bundle holds that name (`named_terms`); any other query
searches exactly what it did before.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable

# Before every entry-name term: a control character, which the analyzer never puts in a term,
# so no word of a page or a query can be one.
MARK = "\x01"

# What separates the parts of an API name as written (apiref's `_TAIL`): kept by the split.
_PARTS = re.compile(r"(::|[.#\\])")  # (`\`: PHP's, `GuzzleHttp\Client::request`)
_CALL = re.compile(r"\(.*\)$")  # `Links.create()`, `JsonReader(Reader in)`
_ARITY = re.compile(r"/[0-9]{1,3}$")  # `Ecto.Repo.insert/2`
_SPACE = re.compile(r"\s")
# A name holds a letter, a digit or `_` (a query of punctuation alone names nothing).
_WORDY = re.compile(r"\w")


def _bare(name: str) -> str:
    """`name` without backticks, call parentheses or arity, a Perl `->` as `::`: as a reader
    types it."""
    name = name.strip().strip("`").strip()
    if "->" in name:  # (Perl's `Mojo::UserAgent->get` calls the sub `Mojo::UserAgent::get`)
        name = name.replace("->", "::")
    if name.endswith(")"):  # (the patterns only where they can match: a query's cost)
        name = _CALL.sub("", name)
    if "/" in name:
        name = _ARITY.sub("", name)
    return name.strip()


def _term(key: str) -> str:
    """The term of a name: MARK, then the BLAKE2b digest of its UTF-8 bytes with a digest size
    of 6 bytes, in base64url (8 characters; no `.` or `:`, so no qualified name ends in one). A
    lone surrogate (a hostile query's `\ud800`) is encoded as its three bytes, never an error."""
    digest = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=6).digest()
    return MARK + base64.urlsafe_b64encode(digest).decode()


def _is_name(text: str) -> bool:
    """One word of at least two characters, a letter, digit or `_` among them."""
    return len(text) >= 2 and not _SPACE.search(text) and _WORDY.search(text) is not None


def top_level(name: str) -> str | None:
    """`name` as a reader types it when it has one part (`OpenAI`, `glfwInit`), else None."""
    bare = _bare(name)
    return bare if _is_name(bare) and len(_PARTS.split(bare)) == 1 else None


def entry_terms(name: str, top: frozenset[str] = frozenset(), last: bool = True) -> list[str]:
    """The entry-name terms of an API entry named `name` (MARK + each name a reader may type):
    the full name, its last two parts and its last part; none for a name with a space (no query
    of one word types it). A constructor (`JsonReader.JsonReader`) is not named by its last
    part: that is its class's name; nor is a member whose last part is the name of an entry of
    one part (`top`): openai-node's clients each have a static `OpenAI` (`AzureOpenAI.OpenAI`),
    and "OpenAI" names the class `OpenAI`. Without `last`, none names the last part (an
    inherited member, `ZodEffects.brand`: "brand" names the base's `ZodType.brand`)."""
    bare = _bare(name)
    if not _is_name(bare):
        return []
    keys = [bare]
    parts = _PARTS.split(bare)  # [part, separator, part, ...]
    if len(parts) >= 3:
        parent = parts[-3]
        keys.append("".join(parts[-3:]))
        if last and parts[-1] != parent and parts[-1] not in top:
            keys.append(parts[-1])
    return [_term(key) for key in dict.fromkeys(keys) if _is_name(key) and _bare(key) == key]


def query_term(query: str) -> str | None:
    """The entry-name term a query searches when it is one name (`JsonReader`,
    `` `Element.select()` ``, `tokio::spawn`), else None."""
    text = query.strip()
    if " " in text and not text.endswith(")"):  # words (most queries): no name, at once
        return None
    bare = _bare(text)
    return _term(bare) if _is_name(bare) and _bare(bare) == bare else None


# Words that say what kind of thing a name is ("JsonReader class", "the Router struct",
# "useState hook"): a query of one name and such words names the entry as the name alone does.
KIND_WORDS = frozenset(
    "class struct structure enum enumeration type typedef trait interface protocol hook "
    "function func fn method macro module package namespace constant const property field "
    "variable attribute annotation decorator component object record union extension "
    "constructor exception".split()
)
# Words before a name and its kind ("the Router struct") that name nothing.
_ARTICLES = frozenset(("the", "a", "an"))
# A query of words that may be one name written apart ("Flag inversion" for `FlagInversion`,
# "add days" for `addDays`): two or three plain words.
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9]*")
MAX_JOINED = 3


def _joined(words: list[str]) -> list[str]:
    """The names `words` may be written apart from, in camel case: UpperCamel (`FlagInversion`)
    and lowerCamel (`addDays`), the other words' first letters made capitals, as typed after."""
    rest = "".join(w[:1].upper() + w[1:] for w in words[1:])
    first = words[0]
    return list(
        dict.fromkeys((first[:1].upper() + first[1:] + rest, first[:1].lower() + first[1:] + rest))
    )


def _words(query: str) -> list[str]:
    """The words of a query that may name an entry, less a first article; none for a query of
    one word or of more than MAX_JOINED + 1 (most questions: at once)."""
    words = query.split()
    if not 2 <= len(words) <= MAX_JOINED + 1:
        return []
    return words[1:] if words[0].lower() in _ARTICLES else words


def _kind_named(words: list[str]) -> str | None:
    """The name `words` type with kind words ("JsonReader class", "`useState` hook"), else
    None. A kind word in lower case is one; a capital one ("Struct Router") only beside a name,
    as a type may be named by one (jsoup's `Attribute`: "Attribute class")."""
    named = [w for w in words if w not in KIND_WORDS]
    if len(named) > 1:
        named = [w for w in named if w.lower() not in KIND_WORDS]
    return named[0] if len(named) == 1 and query_term(named[0]) is not None else None


def _joinable(words: list[str]) -> bool:
    return (
        2 <= len(words) <= MAX_JOINED
        and all(_PLAIN.fullmatch(w) for w in words)
        and not any(w.lower() in KIND_WORDS for w in words)
    )


def entry_query(query: str, held: Callable[[str], bool]) -> tuple[str, list[str]]:
    """The query whose words are searched and the entry-name terms searched besides them, of
    the terms `held` says the bundle holds: for one name (query_term), its term; for one name
    and kind words ("JsonReader class", "the Router struct"), the name's term, the name alone
    searched where it is held (its entry ranks as for the bare name: the kind word is in most
    reference chunks of its language); for two or three plain words, the camel-case names they
    join to (`_joined`: "Flag inversion" `FlagInversion`), looked up only when the bundle holds
    the joined word as a term (`flaginversion`, which a name's whole gives): one lookup, not
    two digests and two, for a query of words that names nothing. Any other query: itself and
    none, so it scores as it did."""
    one = query_term(query)
    if one is not None:
        return query, [one] if held(one) else []
    words = _words(query)
    if not words:
        return query, []
    name = _kind_named(words)
    if name is not None:
        term = _term(_bare(name))
        return (name, [term]) if held(term) else (query, [])
    # (articles name nothing: "create an issue" is GitHub's `createIssue`, "merge a pull
    # request" its `mergePullRequest`, as "create issue" is)
    words = [w for w in words if w.lower() not in _ARTICLES]
    if _joinable(words):
        keys = _joined(words)
        if held(keys[0].lower()):
            return query, [t for t in map(_term, keys) if held(t)]
        if len(words) == 2:  # (a verb and its object named object first, in lower camel case:
            # Shopify's and Saleor's mutations, "create a product" `productCreate`)
            key = words[1][:1].lower() + words[1][1:] + words[0][:1].upper() + words[0][1:]
            if held(key.lower()) and held(term := _term(key)):
                return query, [term]
    return query, []


def kind_named(query: str) -> str | None:
    """The name a query of one name and kind words types ("the Router struct": `Router`)."""
    return _kind_named(_words(query))


def named_terms(query: str) -> list[str]:
    """The entry-name terms `query` searches where the bundle holds them all (entry_query)."""
    return entry_query(query, lambda _: True)[1]


def is_entry_term(term: str) -> bool:
    return term.startswith(MARK)
