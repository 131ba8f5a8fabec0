"""The command line's parts (`cli.main` parses the arguments and dispatches): `parser` (the
arguments and subcommands), `options` (arguments -> search options, bundles, tool selection),
`terminal` (`search`, `get`, `toc`), `serve` (`--transport http`) and `clientconfig`
(`docsmcp-runtime config`, the snippet that registers a server in an MCP client).
"""
