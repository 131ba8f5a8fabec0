"""docsmcp-runtime: serve a docsmcp documentation bundle over the Model Context Protocol."""

__version__ = "0.1.0"
