"""The MCP tools over an opened bundle, one module each: `search_docs`, `get_doc`,
`list_sections`, `get_page`, `get_api_reference`, `get_code_examples` and `compare_versions`
(its definition, its arguments parsed into one request, and its run). `registry` lists them and
picks those a server exposes; `app` (`DocsApp`) serves them to the protocol layer. What they
share: `context` (the bundle as the tools read it), `arguments` (the argument rules), `schemas`
(the parts of their definitions), `hits` (search hits) and `results` (the result envelopes).
"""
