"""One module per input format, each turning a page into the markdown the chunker reads: markdown
dialects (`dialects`, `fences`, `mdx`, the markdown-it fast paths `mdfast`), reStructuredText
(`rst`, `rst_directives`), saved HTML pages (`htmlpage`, `linemap`), Python API docs (`apidoc`) and
llms-full.txt files (`llms_full`). Used by the sources stage (sources/corpus.py,
sources/convert.py).
"""
