"""Packages whose source code is their documentation: which files of a Rust crate, a TypeScript
package or a Go module are pages (their files' readers are in formats/source/), and which GraphQL
files are schemas (formats/graphql/).
"""
