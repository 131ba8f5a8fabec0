"""The command line's subcommands beside serving (`cli.py` parses the arguments and dispatches):
`clientconfig` is `docsmcp-runtime config`, the snippet that registers a server in an MCP
client.
"""
