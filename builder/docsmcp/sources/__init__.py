"""First stage of the build: find and read the docs. Discovery of files within the source roots
(`discover`), manifests (`manifest`), one file's settings from manifest, hints and frontmatter
(`settings`, `frontmatter`), the whole `Corpus` (`corpus`), includes (`includes`) and git checkouts
(`gitsource`); each input format lives in `formats/` (markdown dialects, MDX, reST, HTML, API docs,
llms-full.txt) or `pdf/`, and `convert` picks the converter of a non-markdown page.
"""
