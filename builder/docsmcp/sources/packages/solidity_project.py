"""Which `.sol` files of a docs tree are pages: a Solidity project's own contracts, the ones
forge doc and solidity-docgen publish (formats/source/soldoc.py makes the pages).

The project says where its sources are:

- **Foundry**: `foundry.toml`'s `[profile.default] src` (default `src`);
- **Hardhat**: `hardhat.config.{js,ts,cjs,mjs}`'s `paths.sources` (default `contracts`);
- **Truffle**: `truffle-config.js`/`truffle.js`'s `contracts_directory` (default `contracts`).

Configurations are looked for in the docs folder and the folders above its `.sol` files (a
monorepo's packages), and every one found adds its source folder; a `.sol` file outside them is
code (tests, scripts, `lib/` dependencies, formal-verification harnesses). A tree without any
configuration publishes the docs folder's `.sol` files. Either way, inside a source folder these
are code, not pages: `test/`, `script/`, `lib/`, `node_modules/`, `mocks/`, `vendor/` folders,
forge's `*.t.sol` tests and `*.s.sol` scripts, and `*Mock.sol` contracts (OpenZeppelin's docgen
excludes `mocks`; forge doc documents `src` without tests). The folders count from the source
folder, so a docs folder that is a `mocks/` folder is the tree.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from docsmcp.sources.files import SOLIDITY_SUFFIXES
from docsmcp.sources.packages.project_files import folders_above
from docsmcp.sources.settings import read_page_text

log = logging.getLogger(__name__)

FOUNDRY = "foundry.toml"
HARDHAT = tuple(f"hardhat.config.{x}" for x in ("js", "ts", "cjs", "mjs"))
TRUFFLE = ("truffle-config.js", "truffle.js")
MAX_CONFIGS = 100  # configuration files read in one tree
_NOT_PAGES = frozenset(
    """test tests script scripts lib node_modules mocks mock vendor vendored""".split()
)
_NOT_PAGE_ENDS = (".t.sol", ".s.sol", "mock.sol", "mocks.sol")
_HARDHAT_SOURCES = re.compile(
    r"\bsources\s*:\s*(?:path\.(?:join|resolve)\([^()\n]{0,200}?[\"'`]([^\"'`\n]+)[\"'`]\s*\)"
    r"|[\"'`]([^\"'`\n]+)[\"'`])"
)
_TRUFFLE_SOURCES = re.compile(
    r"\bcontracts_directory\s*:\s*(?:path\.(?:join|resolve)\([^()\n]{0,200}?[\"'`]([^\"'`\n]+)"
    r"[\"'`]\s*\)|[\"'`]([^\"'`\n]+)[\"'`])"
)


def _clean(folder: str, path: str) -> str | None:
    """`path` (as a configuration writes it, from its folder) relative to the docs folder;
    None when it leaves it."""
    parts: list[str] = [p for p in folder.split("/") if p]
    for p in path.replace("\\", "/").split("/"):
        if p in ("", "."):
            continue
        if p == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(p)
    return "/".join(parts)


def _configs(docs_dir: Path, sols: Sequence[str]) -> list[str]:
    """The configuration files in the docs folder and the folders above its `.sol` files."""
    found = []
    for folder in folders_above(sols):
        for name in (FOUNDRY, *HARDHAT, *TRUFFLE):
            path = f"{folder}/{name}" if folder else name
            if (docs_dir / path).is_file():
                found.append(path)
        if len(found) >= MAX_CONFIGS:
            break
    return found[:MAX_CONFIGS]


def _foundry_src(text: str) -> str:
    import tomllib  # (only for a tree holding a foundry.toml)

    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return "src"
    profile = data.get("profile") if isinstance(data, dict) else None
    default = profile.get("default") if isinstance(profile, dict) else None
    src = default.get("src") if isinstance(default, dict) else None
    return src if isinstance(src, str) and src.strip() else "src"


def _script_src(text: str, pattern: re.Pattern[str]) -> str:
    m = pattern.search(text)
    return (m.group(1) or m.group(2)) if m else "contracts"


def source_folders(docs_dir: Path, roots: Sequence[Path], sols: Sequence[str]) -> list[str]:
    """The source folders the tree's configurations name (relative to the docs folder, "" for
    itself); [] when it has none."""
    out: list[str] = []
    for path in _configs(Path(docs_dir), sols):
        folder, _, name = path.rpartition("/")
        text, problem = read_page_text(Path(docs_dir), path, roots)
        if text is None:
            log.warning("%s", problem or f"{path}: unreadable; its Solidity sources are guessed")
            text = ""
        if name == FOUNDRY:
            src = _foundry_src(text)
        elif name in HARDHAT:
            src = _script_src(text, _HARDHAT_SOURCES)
        else:
            src = _script_src(text, _TRUFFLE_SOURCES)
        where = _clean(folder, src)
        if where is not None and where not in out:
            out.append(where)
    return out


def _inside(path: str, folder: str) -> bool:
    return not folder or path.startswith(folder + "/")


def pages(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> set[str]:
    """The `.sol` files of `listed` that are the project's API pages."""
    sols = [p for p in listed if p.lower().endswith(SOLIDITY_SUFFIXES)]
    if not sols:
        return set()
    folders = source_folders(docs_dir, roots, sols) or [""]
    out: set[str] = set()
    for p in sols:
        folder = max((f for f in folders if _inside(p, f)), key=len, default=None)
        if folder is None:
            continue
        inner = p[len(folder) + 1 :] if folder else p
        if _NOT_PAGES & set(inner.lower().split("/")[:-1]):
            continue
        if inner.lower().endswith(_NOT_PAGE_ENDS):
            continue
        out.add(p)
    return out


def no_pages(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> set[str]:
    """The `.sol` files of `listed` that are no page (see the module's docstring)."""
    listed = list(listed)
    sols = {p for p in listed if p.lower().endswith(SOLIDITY_SUFFIXES)}
    if not sols:
        return set()
    return sols - pages(docs_dir, roots, listed)
