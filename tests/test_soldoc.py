"""Solidity contracts read as solidity-docgen (OpenZeppelin's docs) and forge doc publish them
from their NatSpec: a Foundry/Hardhat project's source folder becomes a page per file, each
contract with its declaration, `@notice` text, `@dev` note and sections of functions,
modifiers, events, errors, structs, enums and state variables (public ones with their getter),
entries named as users name them (`ERC20.transfer`, `IERC20.Transfer`,
`Ownable.OwnableUnauthorizedAccount`), `@inheritdoc` copying the base's tags, `{IERC20-transfer}`
a reference, inherited members a line of links per base. The fixture is a tree in the shape of
OpenZeppelin/openzeppelin-contracts and Uniswap/v4-core (foundry.toml, hardhat.config.ts,
mocks, tests, scripts, lib/)."""

from __future__ import annotations

import time
from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.sources.formats.source import natspec
from docsmcp.sources.formats.source.soldoc import getter, sol_to_markdown
from docsmcp.sources.formats.source.solidity_lex import lex
from docsmcp.sources.formats.source.solidity_parse import parse
from docsmcp.sources.packages.solidity_project import no_pages
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.tools.app import DocsApp
from hypothesis import given
from hypothesis import strategies as st

IERC20 = """// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/**
 * @dev Interface of the ERC-20 standard as defined in the ERC.
 */
interface IERC20 {
    /**
     * @dev Emitted when `value` tokens are moved from one account (`from`) to
     * another (`to`).
     */
    event Transfer(address indexed from, address indexed to, uint256 value);

    /// @notice Returns the value of tokens in existence.
    function totalSupply() external view returns (uint256);

    /**
     * @notice Moves a `value` amount of tokens from the caller's account to `to`.
     * @param to The recipient.
     * @param value The amount moved.
     * @return success Whether the operation succeeded.
     */
    function transfer(address to, uint256 value) external returns (bool success);

    /// @notice Moves tokens from `from` to `to` using the allowance mechanism.
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}
"""

ERC20 = """// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {IERC20} from "./IERC20.sol";
import {Context} from "../../utils/Context.sol";

/**
 * @title Fungible token
 * @author Acme
 * @dev Implementation of the {IERC20} interface; see {_mint} to create tokens.
 *
 * TIP: For a detailed writeup see our guide
 * https://forum.example.com/t/supply/226[How
 * to implement supply mechanisms].
 * @custom:security-contact security@example.com
 */
abstract contract ERC20 is Context, IERC20 {
    mapping(address account => uint256) private _balances;

    /// @notice The allowance each spender has from each owner.
    mapping(address owner => mapping(address spender => uint256)) public allowances;

    uint256 private _totalSupply;

    /// @dev The largest supply this token may reach.
    uint256 internal constant MAX_SUPPLY = 2 ** 128;

    /// @inheritdoc IERC20
    function totalSupply() public view virtual returns (uint256) {
        return _totalSupply;
    }

    /**
     * @dev See {IERC20-transfer}.
     *
     * NOTE: Does not update the allowance if it is the maximum `uint256`.
     */
    function transfer(address to, uint256 value) public virtual returns (bool) {
        _update(_msgSender(), to, value);
        return true;
    }

    /// @inheritdoc IERC20
    function transferFrom(address from, address to, uint256 value) public virtual returns (bool) {
        _update(from, to, value);
        return true;
    }

    /**
     * @dev Creates a `value` amount of tokens and assigns them to `account`. Emits a
     * {Transfer} event with `from` set to the zero address.
     */
    function _mint(address account, uint256 value) internal {
        _update(address(0), account, value);
    }

    /// @dev Moves balances; the one place they change.
    function _update(address from, address to, uint256 value) internal virtual {
        if (from != address(0)) { _balances[from] -= value; } else { _totalSupply += value; }
        _balances[to] += value;
        emit Transfer(from, to, value);
    }

    function _secret() private pure returns (uint256) {
        return 42;
    }
}
"""

BURNABLE = """// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {ERC20} from "../ERC20.sol";

/// @dev Extension of {ERC20} that allows token holders to destroy their tokens.
abstract contract ERC20Burnable is ERC20 {
    /// @dev Destroys a `value` amount of tokens from the caller.
    function burn(uint256 value) public virtual {
        _update(_msgSender(), address(0), value);
    }
}
"""

CONTEXT = """pragma solidity ^0.8.20;
/// @dev Provides the sender of the transaction.
abstract contract Context {
    function _msgSender() internal view virtual returns (address) { return msg.sender; }
}
"""

OWNABLE = """// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @dev Contract module which provides a basic access control mechanism, where
/// there is an account (an owner) that can be granted exclusive access to
/// specific functions.
abstract contract Ownable {
    address private _owner;

    /// @dev The caller account is not authorized to perform an operation.
    error OwnableUnauthorizedAccount(address account);

    /// @notice Emitted when ownership moves.
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    /// @dev Throws if called by any account other than the owner.
    modifier onlyOwner() {
        if (msg.sender != _owner) revert OwnableUnauthorizedAccount(msg.sender);
        _;
    }

    struct Role {
        /// @dev Who holds it.
        address holder;
        uint64 since;
    }

    /// @notice Where a role stands.
    /// @param Active It is held.
    enum Status { Active, Revoked }
}
"""

BALANCE_DELTA = """// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// @dev Two `int128` values packed into a single `int256`: amount0 then amount1.
type BalanceDelta is int256;

using {add as +} for BalanceDelta global;

/// @notice Packs two amounts into a delta.
function toBalanceDelta(int128 _amount0, int128 _amount1) pure returns (BalanceDelta balanceDelta) {
    assembly ("memory-safe") {
        balanceDelta := or(shl(128, _amount0), and(sub(shl(128, 1), 1), _amount1))
    }
}

function add(BalanceDelta a, BalanceDelta b) pure returns (BalanceDelta) {
    return BalanceDelta.wrap(BalanceDelta.unwrap(a) + BalanceDelta.unwrap(b));
}

/// @notice Library for getting the amount0 and amount1 deltas from the BalanceDelta type
library BalanceDeltaLibrary {
    /// @notice A BalanceDelta of 0.
    BalanceDelta public constant ZERO_DELTA = BalanceDelta.wrap(0);

    function amount0(BalanceDelta balanceDelta) internal pure returns (int128 _amount0) {
        assembly ("memory-safe") {
            _amount0 := sar(128, balanceDelta)
        }
    }
}
"""


def _tree(root: Path) -> Path:
    return write_tree(
        root,
        {
            "README.md": "# Acme Contracts\n\nA library of secure smart contracts.\n",
            "foundry.toml": "[profile.default]\nsrc = 'contracts'\nlibs = ['lib']\n",
            "hardhat.config.ts": "export default { paths: { sources: './contracts' } };\n",
            "contracts/token/ERC20/IERC20.sol": IERC20,
            "contracts/token/ERC20/ERC20.sol": ERC20,
            "contracts/token/ERC20/extensions/ERC20Burnable.sol": BURNABLE,
            "contracts/utils/Context.sol": CONTEXT,
            "contracts/access/Ownable.sol": OWNABLE,
            "contracts/types/BalanceDelta.sol": BALANCE_DELTA,
            "contracts/interfaces/IERC20.sol": 'import {IERC20} from "../token/ERC20/IERC20.sol";',
            "contracts/mocks/ERC20Mock.sol": "contract ERC20Mock { function mint() public {} }",
            "contracts/token/ERC20/ERC20ReturnFalseMock.sol": "contract ERC20ReturnFalseMock {}",
            "test/ERC20.t.sol": "contract ERC20Test { function testMint() public {} }\n",
            "script/Deploy.s.sol": "contract Deploy { function run() public {} }\n",
            "lib/forge-std/src/Test.sol": "abstract contract Test { function t() internal {} }",
        },
    )


def test_solidity_project_reads_as_docgen_shows_it(tmp_path: Path) -> None:
    out = build_bundle(_tree(tmp_path / "acme"), tmp_path / "idx")
    pages = page_texts(out)
    # The project's sources: not mocks, tests, scripts, lib/, nor a file declaring nothing.
    assert set(pages) == {
        "README.md",
        "contracts/token/ERC20/IERC20.sol",
        "contracts/token/ERC20/ERC20.sol",
        "contracts/token/ERC20/extensions/ERC20Burnable.sol",
        "contracts/utils/Context.sol",
        "contracts/access/Ownable.sol",
        "contracts/types/BalanceDelta.sol",
    }
    erc20 = pages["contracts/token/ERC20/ERC20.sol"]
    assert "# ERC20" in erc20 and "abstract contract ERC20 is Context, IERC20" in erc20
    assert "**Title:** Fungible token" in erc20 and "**Author:** Acme" in erc20
    assert "**Note:** Implementation of the `IERC20` interface; see [`ERC20._mint`](#" in erc20
    assert "[How to implement supply mechanisms](https://forum.example.com/t/supply/226)" in erc20
    assert "**Tip:** For a detailed writeup" in erc20
    assert "**custom:security-contact:** security@example.com" in erc20
    assert "## Functions" in erc20 and "### ERC20.transfer" in erc20
    assert "function transfer(address to, uint256 value) public virtual returns (bool)" in erc20
    assert (
        "**Getter:** `function allowances(address, address) external view returns (uint256)`"
        in erc20
    )
    assert "**Value:** `2 ** 128`" in erc20
    # What docgen hides (private members) is absent; internal functions are shown.
    assert "_secret" not in erc20 and "_balances" not in erc20 and "_totalSupply" not in erc20
    assert "### ERC20._mint" in erc20
    # @inheritdoc copies the interface's tags; the inherited event is a line of links.
    assert "Returns the value of tokens in existence." in erc20
    assert "**Inherited from" in erc20 and "`Transfer`" in erc20

    app = DocsApp(open_bundle(out))

    def entries(name: str) -> list[dict]:
        result = app.call_tool("get_api_reference", {"method": name})
        assert not result.get("isError"), (name, result)
        return result["structuredContent"]["entries"]

    (contract,) = entries("ERC20")
    assert contract["kind"] == "abstract contract"
    assert contract["description"].startswith("Implementation of the IERC20 interface")
    (tf,) = entries("ERC20.transferFrom")
    assert tf["kind"] == "function"
    assert tf["signature"] == (
        "function transferFrom(address from, address to, uint256 value) public virtual "
        "returns (bool)"
    )
    assert tf["description"] == "Moves tokens from `from` to `to` using the allowance mechanism."
    assert tf["chunk_id"].endswith("/ERC20-transferFrom-address-address-uint256-")
    # (names differ in case only: the function `transfer`, the event `Transfer`; the exact
    # one first)
    transfer, event = entries("IERC20.transfer")
    assert (transfer["name"], event["name"]) == ("IERC20.transfer", "IERC20.Transfer")
    assert [(p["name"], p["type"], p["description"]) for p in transfer["parameters"]] == [
        ("to", "address", "The recipient."),
        ("value", "uint256", "The amount moved."),
    ]
    assert transfer["returns"] == "bool success: Whether the operation succeeded."
    assert entries("IERC20.Transfer")[0]["kind"] == "event"
    (error,) = entries("Ownable.OwnableUnauthorizedAccount")
    assert error["kind"] == "error" and error["parameters"][0]["name"] == "account"
    assert entries("Ownable.onlyOwner")[0]["kind"] == "modifier"
    assert entries("Ownable.Role")[0]["kind"] == "struct"
    (holder,) = entries("Ownable.Role.holder")  # (a field: the struct's row)
    assert holder["kind"] == "field" and holder["description"] == "Who holds it."
    assert entries("ERC20._mint")[0]["kind"] == "function"
    (allowances,) = entries("ERC20.allowances")
    assert "external view returns (uint256)" in allowances["signature"]
    assert entries("ERC20.MAX_SUPPLY")[0]["kind"] == "constant"
    assert entries("toBalanceDelta")[0]["returns"].startswith("BalanceDelta balanceDelta")
    assert entries("BalanceDelta")[0]["kind"] == "type"
    assert entries("BalanceDeltaLibrary.ZERO_DELTA")[0]["kind"] == "constant"
    # A member inherited from a contract of another page is an entry named as the child's.
    burn_transfer = entries("ERC20Burnable.transfer")[0]
    assert burn_transfer["signature"].startswith("function transfer(address to, uint256 value)")
    for hidden in ("ERC20._secret", "ERC20._balances", "ERC20Mock", "ERC20Test", "Deploy", "Test"):
        assert app.call_tool("get_api_reference", {"method": hidden}).get("isError"), hidden
    # Context (OpenZeppelin's docgen lists it nowhere) is no inherited line of ERC20Burnable.
    burnable = pages["contracts/token/ERC20/extensions/ERC20Burnable.sol"]
    assert "**Inherited from [`ERC20`]" not in burnable  # (another page: a reference)
    assert "**Inherited from `ERC20`:**" in burnable and "_msgSender" not in burnable

    # The search's first hit is the member; `{IERC20-transfer}` refers to the interface's.
    result = app.call_tool("search_docs", {"query": "ERC20.transfer", "limit": 3})
    hit = result["structuredContent"]["hits"][0]
    assert hit["chunk_id"].endswith("#ERC20/functions/ERC20-transfer-address-uint256-")
    targets = {r["id"] for r in hit.get("references", [])}
    assert any(t.endswith("IERC20-transfer-address-uint256-") for t in targets), targets
    first = app.call_tool("search_docs", {"query": "exclusive access owner", "limit": 1})
    assert (
        first["structuredContent"]["hits"][0]["chunk_id"] == "contracts/access/Ownable.sol#Ownable"
    )


def test_api_source_outside_the_docs_folder(tmp_path: Path) -> None:
    """`--api-source` names the contracts beside the docs (an Antora `docs/` beside them)."""
    write_tree(tmp_path / "repo", {"docs/index.md": "# Acme\n\nSee the API.\n"})
    _tree(tmp_path / "repo" / "sol")
    out = build_bundle(
        tmp_path / "repo" / "docs", tmp_path / "idx", "--api-source", str(tmp_path / "repo" / "sol")
    )
    assert "sol/contracts/token/ERC20/ERC20.sol" in page_texts(out)
    assert "sol/test/ERC20.t.sol" not in page_texts(out)
    app = DocsApp(open_bundle(out))
    found = app.call_tool("get_api_reference", {"method": "ERC20.transfer"})
    entry = found["structuredContent"]["entries"][0]
    assert entry["chunk_id"].startswith("sol/contracts/token/ERC20/ERC20.sol#")
    burn = app.call_tool("get_api_reference", {"method": "ERC20Burnable.transfer"})
    assert not burn.get("isError")


def test_which_files_are_pages(tmp_path: Path) -> None:
    files = {
        "src/A.sol": "",
        "src/test/ATest.sol": "",
        "src/utils/BMock.sol": "",
        "test/A.t.sol": "",
        "script/A.s.sol": "",
        "lib/forge-std/src/Vm.sol": "",
    }
    # Foundry's default source folder, `src`.
    root = write_tree(tmp_path / "forge", {**files, "foundry.toml": "[profile.default]\n"})
    assert no_pages(root, (root,), list(files)) == set(files) - {"src/A.sol"}
    # Without a configuration the docs folder's contracts are pages, less tests and mocks.
    bare = write_tree(tmp_path / "bare", files)
    assert no_pages(bare, (bare,), list(files)) == set(files) - {"src/A.sol"}
    # Hardhat's `paths.sources` and Truffle's `contracts_directory`.
    hh = {"contracts/A.sol": "", "other/B.sol": "", "hardhat.config.js": ""}
    hh_root = write_tree(tmp_path / "hh", hh)
    assert no_pages(hh_root, (hh_root,), ["contracts/A.sol", "other/B.sol"]) == {"other/B.sol"}
    hh["hardhat.config.js"] = (
        "module.exports = { paths: { sources: path.join(__dirname, 'other') } }"
    )
    hh_root = write_tree(tmp_path / "hh2", hh)
    assert no_pages(hh_root, (hh_root,), ["contracts/A.sol", "other/B.sol"]) == {"contracts/A.sol"}
    tr = write_tree(
        tmp_path / "tr", {"truffle-config.js": "contracts_directory: './sol'", "sol/A.sol": ""}
    )
    assert no_pages(tr, (tr,), ["sol/A.sol"]) == set()
    # A docs folder that is a mocks folder is the tree.
    mocks = write_tree(tmp_path / "mocks", {"docs/ERC20.sol": ""})
    assert no_pages(mocks, (mocks,), ["docs/ERC20.sol"]) == set()


def test_natspec_tags_as_solc_reads_them() -> None:
    said = natspec.read("Untagged text is the notice.\nSecond line.\n@dev A note\n  that goes on.")
    assert said.notice == "Untagged text is the notice.\nSecond line."
    assert said.dev == "A note\nthat goes on."
    two = natspec.read("@author A\n@author B\n@param x The x\n@return The result\n@custom:x y")
    assert two.author == "A\n\nB" and two.params == (("x", "The x"),)
    assert two.returns == ("The result",) and two.custom == (("custom:x", "y"),)
    base = natspec.read("@notice Base.\n@param a The a.")
    own = natspec.inherit(natspec.read("@inheritdoc Base\n@param b The b."), base)
    assert own.notice == "Base." and own.params == (("b", "The b."), ("a", "The a."))
    # A `///` run is one comment; a plain comment between it and the code keeps it.
    (c,) = parse("/// @notice One\n/// two\n// plain\ncontract C {}\n").contracts
    assert c.doc == "@notice One\ntwo" and c.doc_line == 0
    text = natspec.markdown(
        "{IERC20-transfer} and {xref-ERC20-_mint-address-uint256-}[mint]",
        lambda c, m, label: f"<{c}|{m}|{label}>",
    )
    assert text == ["<IERC20|transfer|> and <ERC20|_mint|mint>"]


def test_signatures_and_getters() -> None:
    unit = parse(
        "contract C is A, B(1), L.D {\n"
        "  uint[] public xs;\n"
        "  mapping(address => mapping(uint256 id => S)) public m;\n"
        "  function (uint) external returns (uint) public hook;\n"
        "  function f(\n    uint a,\n    bytes calldata /* data */ b\n  )\n"
        "    external\n    onlyOwner(1)\n    override(A, B)\n    returns (uint256 r, S memory)\n"
        "  { r = a; }\n"
        "  fallback() external payable {}\n"
        "  receive() external payable {}\n"
        "}\n"
    )
    (c,) = unit.contracts
    assert c.bases == ("A", "B", "L.D")
    members = {m.name: m for m in c.members}
    assert getter(members["xs"]) == "function xs(uint256) external view returns (uint256)"
    assert getter(members["m"]) == "function m(address, uint256) external view returns (S)"
    f = members["f"]
    assert f.signature == (
        "function f(uint a, bytes calldata b) external onlyOwner(1) override(A, B) "
        "returns (uint256 r, S memory)"
    )
    assert [p.name for p in f.params] == ["a", "b"] and f.visibility == "external"
    assert [(p.type, p.name, p.location) for p in f.returns] == [
        ("uint256", "r", ""),
        ("S", "", "memory"),
    ]
    assert members["hook"].kind == "variable" and members["hook"].visibility == "public"
    assert {"fallback", "receive"} <= set(members)
    # A file of one declaration is titled by it (v4-core's `PoolKey.sol`: one struct).
    one = sol_to_markdown("t/PoolKey.sol", "/// @notice A key\nstruct PoolKey { uint24 fee; }\n")
    assert one.title == "PoolKey" and one.text.startswith("# PoolKey {#PoolKey}")
    assert [e.name for e in one.api] == ["PoolKey", "PoolKey.fee"]


@FUZZ
@given(
    st.text(
        alphabet="contract interface library function event error struct enum is public "
        "private {}[]()=;,.\"'/*@\n\\ abcxyz019-",
        max_size=300,
    )
)
def test_reader_never_fails_on_any_text(text: str) -> None:
    tokens = lex(text)
    assert all(a.end <= b.start for a, b in zip(tokens, tokens[1:], strict=False))
    page = sol_to_markdown("a/X.sol", "pragma solidity ^0.8.0;\n" + text)
    assert isinstance(page.text, str)
    assert len(page.line_map) == len(page.text.split("\n")) or page.text == ""


def test_hostile_input_ends() -> None:
    start = time.process_time()
    deep = "contract A {\n" + "function f() public {" * 20000 + "}" * 20000 + "\n}\n"
    assert "A.f" in sol_to_markdown("a.sol", deep).text
    assert isinstance(sol_to_markdown("a.sol", "/*" + "x" * 200_000).text, str)
    assert isinstance(sol_to_markdown("a.sol", '"' + "\\" * 100_001).text, str)
    links = "/// @notice " + "https://a[" * 20000 + "\ncontract B {}\n"
    assert "# B" in sol_to_markdown("b.sol", links).text
    refs = "/// @dev " + "{" * 50000 + "xref:a[" * 20000 + "\ncontract C {}\n"
    assert "# C" in sol_to_markdown("c.sol", refs).text
    many = "contract M {\n" + "  /// @notice n\n  function f(uint a) public {}\n" * 30000 + "}\n"
    page = sol_to_markdown("m.sol", many)
    # (the parser reads 20,000 declarations of a file, the page shows them, the registry
    # keeps 20,000 entries)
    assert page.text.count("function f(uint a) public") == 20000 and len(page.api) == 20000
    assert time.process_time() - start < 60
