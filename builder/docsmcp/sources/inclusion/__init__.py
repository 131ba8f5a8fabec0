"""What a page takes from other files before it is read: includes of every dialect (markdown, MDX
partials, reST, AsciiDoc, Hugo shortcodes, docfx, Texinfo), code and demo files, type tables.
includes.py is the reader; include_files.py reads a file inside the source roots;
include_report.py says what could not be included.
"""
