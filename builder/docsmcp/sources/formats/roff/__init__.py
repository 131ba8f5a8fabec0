"""Unix manual pages written in roff, man(7) and BSD mdoc(7), as `man` and mandoc show them:
roff_text (escapes and fonts), roff_lines (requests, conditionals, a page's own macros and
strings), mdoc_inline (mdoc's inline macros), roff_tbl (tbl tables), manpage (the page, its
lists and its option entries)."""
