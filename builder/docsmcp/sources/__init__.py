"""First stage of the build: find and read the docs, in pipeline order. Discovery of files
within the source roots (`discover`), manifests (`manifest`), one file's settings from manifest,
hints and frontmatter (`settings`, `frontmatter`), a site's config files (`site_config`,
`jsliteral`) and what its build leaves out (`site_build`), git checkouts (`gitsource`); then
the folders: `layout/` (versions, variants, translations), `packages/` (code whose docs it
holds), `sites/` (one generator's rules each), `navigation/` (nav files: titles and order),
`inclusion/` (what a page takes from other files); each input format lives in `formats/` or
`pdf/`, `convert` picks the converter of a non-markdown page, and `corpus` reads it all into
the `Corpus`.
"""
