"""Plain JavaScript packages: the JSDoc of the modules a published package without types
exports, read as jsdoc (or TypeDoc with `allowJs`) shows them. Fixtures are written in the
shape of ws (`class WebSocket` and `module.exports = WebSocket`, an `index.js` attaching the
modules to it, a `wrapper.mjs` of ES exports) and Express (`var app = exports =
module.exports = {}`, `app.use = function use(fn) {…}`, no `main`: Node's `index.js`)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.sources.formats.source.jsdoc_cjs import (
    commonjs_exports,
    js_declarations,
    required_exports,
)
from docsmcp.sources.formats.source.ts_scan import blank
from docsmcp.sources.formats.source.tsdoc import typescript_to_markdown
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

SOCKET = """'use strict';

const EventEmitter = require('events');
const Sender = require('./sender');

/**
 * Class representing a socket.
 *
 * @extends EventEmitter
 */
class Socket extends EventEmitter {
  /**
   * Create a new `Socket`.
   *
   * @param {(String|URL)} address The URL to which to connect
   */
  constructor(address) {
    super();
    this._sender = null;
  }

  /**
   * Send a data message.
   *
   * @param {*} data The message to send
   * @param {Object} [options] Options object
   * @param {Boolean} [options.binary] Specifies whether `data` is binary or text
   */
  send(data, options) {}

  /**
   * Set up the socket.
   *
   * @private
   */
  setSocket(socket) {}
}

/**
 * Not exported: a helper.
 */
function emitErrorAndClose(socket, err) {}

module.exports = Socket;
"""

RESPONSE = """'use strict';

var http = require('node:http');

/**
 * Response prototype.
 * @public
 */
var res = Object.create(http.ServerResponse.prototype);

module.exports = res;

/**
 * Set the HTTP status code for the response.
 *
 * @param {number} code - The HTTP status code to set.
 * @return {ServerResponse} - Returns itself for chaining methods.
 * @public
 */
res.status = function status(code) {
  this.statusCode = code;
  return this;
};

/**
 * Check if the request is fresh.
 * @private
 */
res.hidden = function hidden() {};

/** Inside a function: no API. */
function inner() {
  res.nested = function nested() {};
}
"""


def _packages(root: Path) -> Path:
    """A ws-shaped package in `ws/`, an Express-shaped one in `express/`, and a private site's
    scripts in `site/`."""
    (root / "ws/lib").mkdir(parents=True)
    (root / "ws/test").mkdir()
    (root / "ws/package.json").write_text(
        json.dumps(
            {
                "name": "ws",
                "version": "8.0.0",
                "main": "index.js",
                "exports": {".": {"browser": "./browser.js", "import": "./wrapper.mjs"}},
            }
        )
    )
    (root / "ws/index.js").write_text(
        "const Socket = require('./lib/socket');\nconst Helper = require('./lib/helper');\n"
        "Socket.Helper = Helper;\nmodule.exports = Socket;\n"
    )
    (root / "ws/wrapper.mjs").write_text(
        "import Socket from './lib/socket.js';\nexport { Socket };\nexport default Socket;\n"
    )
    (root / "ws/browser.js").write_text("/** Throws. */\nmodule.exports = function () {};\n")
    (root / "ws/lib/socket.js").write_text(SOCKET)
    (root / "ws/lib/sender.js").write_text(
        "/** Internal. */\nclass Sender {}\nmodule.exports = Sender;\n"
    )
    (root / "ws/lib/helper.js").write_text(
        "/** A helper. */\nfunction help() {}\nmodule.exports = help;\n"
    )
    (root / "ws/test/socket.test.js").write_text("module.exports = 1;\n")
    (root / "ws/README.md").write_text("# ws\n\nA socket library.\n")
    (root / "express/lib").mkdir(parents=True)
    (root / "express/examples").mkdir()
    (root / "express/package.json").write_text(json.dumps({"name": "express", "version": "5.0.0"}))
    (root / "express/index.js").write_text("module.exports = require('./lib/express');\n")
    (root / "express/lib/express.js").write_text(
        "var res = require('./response');\n\n/**\n * Create an application.\n *\n"
        " * @return {Function}\n * @api public\n */\n"
        "exports = module.exports = createApplication;\n\nfunction createApplication() {}\n\n"
        "exports.response = res;\n"
    )
    (root / "express/lib/response.js").write_text(RESPONSE)
    (root / "express/examples/app.js").write_text("/** An example. */\nmodule.exports = 1;\n")
    (root / "site").mkdir()
    (root / "site/package.json").write_text(
        json.dumps({"name": "site", "version": "1.0.0", "private": True, "main": "sidebars.js"})
    )
    (root / "site/sidebars.js").write_text("/** The sidebar. */\nmodule.exports = { docs: [] };\n")
    (root / "site/intro.md").write_text("# Intro\n\nHello.\n")
    return root


def test_the_modules_a_package_exports_are_its_pages(tmp_path: Path) -> None:
    root = _packages(tmp_path / "docs")
    out = build_bundle(
        root, tmp_path / "idx", "--api-source", root / "ws", "--api-source", root / "express"
    )
    texts = page_texts(out)
    assert set(texts) == {
        "ws/README.md",
        "ws/lib/socket.js",
        "ws/lib/helper.js",
        "express/lib/express.js",
        "express/lib/response.js",
        "site/intro.md",
    }  # not the browser build, an internal module, tests, examples, a private site's scripts
    socket = texts["ws/lib/socket.js"]
    assert "### Socket.send" in socket and "```js" in socket
    assert "setSocket" not in socket and "emitErrorAndClose" not in socket
    names = pq.read_table(out / "api.parquet").column("name").to_pylist()
    assert {"Socket", "Socket.send", "help", "createApplication", "res.status"} <= set(names)
    assert "res.hidden" not in names and "res.nested" not in names
    with McpSession(out) as s:
        entry = s.call("get_api_reference", {"method": "res.status"}).structured_content["entries"][
            0
        ]
        assert entry["chunk_id"].startswith("express/lib/response.js#")
        assert entry["signature"] == "res.status(code)"
        assert [(p["name"], p["type"]) for p in entry["parameters"]] == [("code", "number")]
        assert entry["returns"] == "ServerResponse: Returns itself for chaining methods."
        send = s.call("get_api_reference", {"method": "Socket.send"}).structured_content
        params = [p["name"] for p in send["entries"][0]["parameters"]]
        assert params == ["data", "options", "options.binary"]


TRANSPORT = """'use strict';

/** A way to send messages. */
class Transport {
  /**
   * Send a message.
   *
   * @param {string} message The text
   */
  send(message) {}
}

module.exports = Transport;
"""

HTTP = """'use strict';

const EventEmitter = require('events');
const Transport = require('./transport');
const { Agent: Pool } = require('./pool');

/** Sends over HTTP. */
class HttpTransport extends Transport {
  /** Open the connection. */
  open() {}
}

/** A pool of sockets. */
class Sockets extends Pool {}

class Emitter extends EventEmitter {}

module.exports = { HttpTransport, Sockets, Emitter };
"""


def test_a_javascript_class_shows_its_bases_members(tmp_path: Path) -> None:
    # a CommonJS package (ws's and nodemailer's shape): classes extending a class another
    # module of the package exports, required by name or as the module itself
    root = write_tree(
        tmp_path / "pkg",
        {
            "README.md": "# Mailer\n",
            "package.json": json.dumps({"name": "mailer", "version": "1.0.0", "main": "index.js"}),
            "index.js": "module.exports = require('./lib/http');\n",
            "lib/http.js": HTTP,
            "lib/transport.js": TRANSPORT,
            "lib/pool.js": "class Agent {\n  /** Take a socket. */\n  take() {}\n}\n"
            "module.exports = { Agent };\n",
        },
    )
    out = build_bundle(root, tmp_path / "idx")
    http = page_texts(out)["lib/http.js"]
    assert "### HttpTransport.send" in http and "*Inherited from `Transport.send`*" in http
    assert "### Sockets.take" in http
    names = set(pq.read_table(out / "api.parquet").column("name").to_pylist())
    assert {"HttpTransport.send", "HttpTransport.open", "Sockets.take"} <= names
    assert not any(n.startswith("Emitter.") for n in names)  # (a base outside the package)


def test_a_site_of_scripts_reads_as_before(tmp_path: Path) -> None:
    # a docs site's own JavaScript (a private package, or one without a version) is no page
    root = tmp_path / "site"
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "docs", "main": "src/index.js"}))
    (root / "src/index.js").write_text("/** A component. */\nmodule.exports = function A() {};\n")
    (root / "theme.js").write_text("/** The theme. */\nmodule.exports = {};\n")
    (root / "vendor.min.js").write_text("/** Minified. */\nexport function v(){}\n")
    (root / "typed").mkdir()  # a package with types: its `.d.ts` is the API (not in the tree)
    (root / "typed/package.json").write_text(
        json.dumps({"name": "t", "version": "1.0.0", "types": "index.d.ts", "main": "index.js"})
    )
    (root / "typed/index.js").write_text(
        "/** Typed elsewhere. */\nmodule.exports = function t() {};\n"
    )
    (root / "intro.md").write_text("# Intro\n\nHello.\n")
    out = build_bundle(root, tmp_path / "idx", "--api-source", root / "typed")
    assert set(page_texts(out)) == {"intro.md"}


def test_commonjs_exports_are_read_as_written() -> None:
    code = blank(
        "var app = exports = module.exports = {};\nmodule.exports = { a, b: c };\n"
        "exports.d = e;\nmodule.exports = require('./x');\n"
    ).code
    assert commonjs_exports(code) == {"app", "a", "c", "e"}
    assert required_exports("exports.static = require('./static');\n") == ["./static"]
    assert required_exports("const x = require('./x');\n// require('./y')\n") == []
    decls = js_declarations(RESPONSE)
    assert [d.name for d in decls] == ["res", "res.status", "res.hidden"]
    page = typescript_to_markdown("lib/response.js", RESPONSE)
    assert page.title == "response"
    assert [e.name for e in page.api] == ["res", "res.status"]  # `@private` hides


# Express 5's `lib/request.js` and `lib/application.js` shapes: getters defined through a
# helper of the module, and the HTTP verbs' methods assigned in a loop.
REQUEST = """'use strict';
var req = Object.create(http.IncomingMessage.prototype);
module.exports = req;
var app = exports = module.exports = {};

/**
 * Parse the query string of `req.url`.
 *
 * @return {Object}
 * @public
 */

defineGetter(req, 'query', function query(){
  return this.app.get('query parser fn')(this.url);
});

Object.defineProperty(req, 'secure', {
  get: function () { return this.protocol === 'https'; }
});

defineGetter(other, 'hidden', function () {});
notADefiner(req, 'plain', function () {});

/**
 * Delegate `.VERB(...)` calls to `router.VERB(...)`.
 */

methods.forEach(function (method) {
  app[method] = function (path) {
    return this;
  };
});

['lock', 'unlock'].forEach((verb) => {
  app[verb] = function (path, fn) {};
});

function defineGetter(obj, name, getter) {
  Object.defineProperty(obj, name, { configurable: true, enumerable: true, get: getter });
}

function notADefiner(obj, name, fn) {}
"""


def test_getters_and_methods_assigned_in_a_loop_are_entries() -> None:
    page = typescript_to_markdown("lib/request.js", REQUEST)
    assert [e.name for e in page.api] == [
        "req",
        "app",
        "req.query",
        "req.secure",
        "app.METHOD",  # (Express's reference: `app.METHOD(path, callback)`)
        "app.lock",
        "app.unlock",
    ]
    query = page.api[2]
    assert query.description == "Parse the query string of `req.url`." and query.returns == "Object"
    assert "## req.query\n\n*Property*" in page.text
    assert page.api[4].signature == "app.METHOD(path)" and page.api[6].signature.endswith(
        "(path, fn)"
    )


_PARTS = [
    "module.exports = ",
    "exports.a = ",
    "var app = ",
    "app.use = function use(fn) {",
    "X.prototype.m = async (a) => ",
    "require('./x')",
    "class C {",
    "  m(a) {}\n",
    "function f(a) {",
    "}",
    "{",
    ";",
    "\n",
    "/** doc @param {T} a - text @return {R} r */\n",
    "'str{'",
    "`t${a}`",
    "/re{/g",
    "// c {\n",
    "=>",
    "(",
    ")",
    "defineGetter(app, 'q', function q() {",
    "Object.defineProperty(app, 'p', {",
    "list.forEach(function (m) {",
    "['a', 'b'].forEach((m) => {",
    "app[m] = function (x) {",
]


@FUZZ
@given(st.lists(st.sampled_from(_PARTS), max_size=40))
def test_any_javascript_reads_without_error(parts: list[str]) -> None:
    text = "".join(parts)
    page = typescript_to_markdown("lib/x.js", text)
    assert len(page.line_map) == (page.text.count("\n") + 1 if page.text else 0)
    lines = page.text.split("\n")
    for entry in page.api:
        assert 1 <= entry.line_start <= entry.line_end <= len(page.line_map)
        assert lines[entry.line_start - 1].startswith("#")
    for spec in required_exports(text):
        assert spec


@FUZZ
@given(st.text(max_size=300))
def test_any_text_reads_as_javascript_without_error(text: str) -> None:
    typescript_to_markdown("x.cjs", text)
    required_exports(text)
