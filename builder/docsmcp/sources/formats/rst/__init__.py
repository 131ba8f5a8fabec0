"""reStructuredText and Sphinx: docutils with Sphinx's directives and roles, domain objects as API
entries, autodoc and numpydoc from the Python source.
"""
