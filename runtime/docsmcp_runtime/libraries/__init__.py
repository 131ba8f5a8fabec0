"""Several bundles in one server: each bundle is a library (its metadata `name`), several bundles
of one name are its versions. `serving` opens the `--bundle` values and picks what serves them;
`app` holds `LibraryApp`, which answers every tool for all libraries; `library` (a library and
its id prefix), `routing` (which library a call addresses), `fusion` (`search_docs` over all
libraries), `compare` (`compare_versions`) and `resources` (resources, prompts, completions)
are its parts.
"""
