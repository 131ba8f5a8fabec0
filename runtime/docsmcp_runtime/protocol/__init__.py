"""The Model Context Protocol itself: `dispatcher` handles JSON-RPC 2.0 / MCP messages whatever
the transport, `stdio` is the newline-delimited stdin/stdout transport (the HTTP transport is
the `http` package), `cursor` makes and checks the signed pagination cursors of list results.
"""

# The largest JSON-RPC message read (a stdio line, an HTTP body by default): a real request is a
# few kilobytes; queries are cut far below this (search/engine.py). Here, not in the dispatcher,
# so the command line's help can say it without importing the protocol.
MAX_MESSAGE_BYTES = 1 << 20
