"""Packages whose source code is their documentation: which files of a Rust crate, a TypeScript
package or a Go module are pages (their files' readers are in formats/source/), which GraphQL
files are schemas (formats/graphql/), and which files named like manual pages are pages
(man_pages; formats/roff/). `project_files` says which folder is a project (the nearest one
holding its marker file) for all of them.
"""
