"""PDF manuals as sources: text lines and outline read with pypdfium2 and cached (`extract`), put
in reading order (`reading`), tables found (`tables`) and laid out as markdown with headings, links
and page ranges (`layout`); `source` makes the `SourceFile` of a PDF for the corpus. Records shared
by these steps are in `model`.
"""
