"""Size and structure limits of the builder's input: one home for every bound on hostile input.

Each limit sits far above what real documentation needs (the largest of the ~53,000 files of the
test corpora, win32's 48,209 included, is 609 KB, with 8,043 lines and 11,040 table cells; no
manifest is over 2 KB) and keeps the worst case of one file bounded: about 1 GB of memory and
20 s, whatever its shape. Input beyond a limit is refused with one Problem naming the file
(and line, where there is one), so `docsmcp validate` lists it and `build` writes nothing; it
is never truncated silently.
"""

from __future__ import annotations

# Markdown files. The parser keeps several tokens per table cell, list item, line or inline
# mark, 300-400 bytes each: an unlimited 16 MB table took 4 GB, 1 MB of one-column table rows
# 1.3 GB. The size and line limits bound what one file can cost to about 0.9 GB and 18 s (2 MiB
# of `*a*`; 100,000 list items or table rows take 0.3 GB).
MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_FILE_LINES = 100_000
# Table cells per file (rows times the header's columns, counted before parsing), about 1.4 KB
# each once parsed. markdown-it fills every body row up to the header's width, so 1.5 KB of
# text (128 header columns, 512 rows of one character) makes 65,536 cells: 20 such tables took
# 1.4 GB. The largest real file (win32's Direct3D format tables) has 11,040.
MAX_TABLE_CELLS = 200_000

# Seconds one file may take to be converted, parsed and chunked (DOCSMCP_PARSE_SECONDS). The
# parsers have inputs within the limits above that are quadratic in their own code: 2 MB of `![`
# took markdown-it 35 s, a 2 MB reST grid table docutils 51 s. Past the budget the file is
# indexed as plain text (common/budget.py), with a warning naming it. Real files take well
# under a second.
DEFAULT_PARSE_SECONDS = 15.0
PARSE_SECONDS_ENV = "DOCSMCP_PARSE_SECONDS"
# MiB one file's parse may grow its process by (DOCSMCP_PARSE_MEMORY_MB), and one range of PDF
# pages its reader: past it the file is indexed as plain text, the PDF refused (common/budget.py).
# A 1 MB PDF of one compressed content stream took pdfium 2.1 GB, a 4 MB one 5.3 GB. Real files
# stay far below: fullrefman.pdf's readers peak at 76 MB, its 4.7 MB of text parse in ~170 MB,
# a 24 MiB PDF text (MAX_PDF_TEXT_BYTES) in ~900 MB.
DEFAULT_PARSE_MEGABYTES = 2048.0
PARSE_MEMORY_ENV = "DOCSMCP_PARSE_MEMORY_MB"

# Manifests (.docs-mcp.json) and the JSON of inline chunking hints.
MAX_MANIFEST_BYTES = 1024 * 1024
# Nesting of arrays and objects: a valid manifest needs 4 levels. Deeper input would exhaust
# the stack of the JSON parser or of schema validation.
MAX_JSON_DEPTH = 64
# Digits of a JSON integer: Python refuses to parse ints of over 4,300 digits, and no setting
# needs more than a handful.
MAX_JSON_INT_DIGITS = 100

# YAML frontmatter. libyaml's composer recurses once per nesting level and crashes the process
# (a segfault, not an exception) beyond some 10,000 levels, so nesting is measured before
# anything is built from the text. Aliases may repeat a node many times ("billion laughs"): the
# node count is taken with every alias expanded.
MAX_YAML_DEPTH = 64
MAX_YAML_NODES = 10_000

# Globs (--include, --exclude, manifest include/exclude/override patterns). Each {a,b} group
# multiplies the alternatives a pattern stands for: {a,b} 25 times would be 2^25 patterns.
MAX_GLOB_CHARS = 1024
MAX_GLOB_ALTERNATIVES = 64

# A PDF (sources/pdf/): its size in bytes and pages. Far above real manuals (fullrefman.pdf: 6.5 MB,
# 2,415 pages); pages are read in ranges, so memory grows with the text, not the page count.
MAX_PDF_BYTES = 512 * 1024 * 1024
MAX_PDF_PAGES = 100_000
# The text extracted from one PDF: it is parsed as one markdown file, at about 37 MB of memory
# per MB of text (fullrefman.pdf: 4.7 MB of text, 2,415 pages, 170 MB), so 24 MiB keeps one
# PDF under ~1 GB; a 10,000-page manual as dense as fullrefman has ~19 MB.
MAX_PDF_TEXT_BYTES = 24 * 1024 * 1024

# reStructuredText (rst.py): docutils spends about half a millisecond per explicit markup line
# (`.. x::`, `.. _label:`, `.. [#]`), worse than linearly for footnotes; a page with more is
# indexed as plain text with a warning (the largest page of CPython's docs has about 1,500).
MAX_RST_EXPLICIT_MARKUP = 10_000

# A saved HTML page (htmlpage.py): markup is several times its text, and html.parser reads about
# 1 MB/s, so a page may be 8 MiB (8 s); the line and table limits above apply to the markdown
# it becomes (its tables are bounded by the converter), not to the HTML.
MAX_HTML_BYTES = 8 * 1024 * 1024
