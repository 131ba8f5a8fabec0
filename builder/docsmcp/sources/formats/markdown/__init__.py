"""Markdown and its dialects (MDX, MyST, Markdoc, GitBook, MDC, pymdownx, Hugo, docfx, Writerside,
MDN's KumaScript, Docsify...), read into the markdown the chunker parses: dialects.py is the entry
point, mdfast.py the markdown-it fast paths, readable.py what a reader sees of JSX.
"""
