"""GNU Texinfo manuals."""
