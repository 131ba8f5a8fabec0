"""Last stage: the bundle folder written and swapped into place crash-safely, with its metadata and
file checksums (`write`).
"""
