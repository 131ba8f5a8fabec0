"""Saved HTML sites (Sphinx, mkdocs builds): a page's main content as markdown."""
