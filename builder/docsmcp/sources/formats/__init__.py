"""One reader per input format, each turning a page into the markdown the chunker reads, in
folders by family: markdown/ (markdown and its dialects: MDX, MyST, Markdoc, pymdownx, Hugo,
docfx, KumaScript...), rst/ (reStructuredText and Sphinx), asciidoc/, html/ (saved sites), r/
(.Rd, R Markdown), texinfo/, source/ (API reference read from source code: Python, Elixir, Rust,
TypeScript, Go), graphql/ (GraphQL schemas: SDL), roff/ (Unix manual pages: man, mdoc); and
alone: OpenAPI specs (openapi, openapi_docs), notebooks, llms-full.txt, Writerside's XML
topics, and linemap (a converted page's lines back to its source's). Used by the sources stage
(sources/corpus.py, sources/convert.py).
"""
