"""Source code read as the API reference its ecosystem publishes: Python (mkdocstrings), Elixir
(ExDoc), Rust (rustdoc), TypeScript (TypeDoc), Go (pkg.go.dev).
"""
