"""An opened bundle: `reader` memory-maps a bundle folder (`open_bundle`, `Bundle`), `integrity`
checks its large files in the background before they are served, `versions` resolves version
requests against its taxonomy, and `changes` compares two bundles of the same documentation.
"""
