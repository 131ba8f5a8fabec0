"""Second stage: a source file parsed once (`blocks`: markdown-it tokens to top-level blocks) and
cut into chunks at its headings (`chunk`). Run per file by pipeline/workers.py.
"""
