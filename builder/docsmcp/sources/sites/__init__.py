"""Rules of one site generator each (Antora, Docusaurus, ExDoc, GitBook, Hugo, Quarto, Rspress,
Writerside, Documenter.jl with the Julia docstrings its @docs blocks show, Sphinx, MDN,
TanStack, Next.js, dumi): what its pages show that their source does not say alone. The config
files every rule reads are sources/site_config.py and jsliteral.py.
"""
