"""docsmcp: build read-only documentation index bundles for the docsmcp MCP runtime."""

__version__ = "0.1.0"
