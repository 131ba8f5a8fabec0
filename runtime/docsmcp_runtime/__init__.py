"""docsmcp-runtime: serve a docsmcp documentation bundle over the Model Context Protocol.

The folders read in the order a request flows: `format/` (the bundle format, shared with the
builder), `distribution/` (a `--bundle` value becomes a local folder), `bundle/` (opening it),
`search/` (query -> ranked hits), `browse/` (the browse tables), `tools/` (the MCP tools over
one bundle), `libraries/` (several bundles in one server), `protocol/` (MCP messages and the
stdio transport) and `http/` (the HTTP transport); `cli.py` and `commands/` are the command
line, `lambda_handler.py` the AWS Lambda entry point. `errors.py` and `logs.py` serve them all.
"""

__version__ = "0.1.0"
