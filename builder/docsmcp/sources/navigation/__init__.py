"""Navigation files users already have (Mintlify docs.json, Docusaurus sidebars, mkdocs nav, mdBook
SUMMARY.md, _meta files, docfx toc.yml, pkgdown, Documenter make.jl): page titles and order.
"""
