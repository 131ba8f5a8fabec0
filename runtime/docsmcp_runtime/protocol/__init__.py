"""The Model Context Protocol itself: `dispatcher` handles JSON-RPC 2.0 / MCP messages whatever
the transport, `stdio` is the newline-delimited stdin/stdout transport (the HTTP transport is
the `http` package), `cursor` makes and checks the signed pagination cursors of list results.
"""
