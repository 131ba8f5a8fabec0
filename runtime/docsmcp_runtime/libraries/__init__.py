"""Several bundles in one server: each bundle is a library (its metadata `name`), several bundles
of one name are its versions. `app` holds `LibraryApp`, which routes every tool call to one
library or fuses the answers of all of them.
"""
