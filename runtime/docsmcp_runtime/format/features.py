"""The features a reader must understand to serve a bundle correctly, as `requires` names them
(bundle-spec.md, *Compatibility*): this reader knows KNOWN_FEATURES and refuses a bundle that
requires any other, naming it (metadata.known_requires). A leaf module: the sections that call
for a feature (metadata.py, rescore.py) both read its name here."""

from __future__ import annotations

# A taxonomy key with `auto_include` rules.
AUTO_INCLUDE = "auto-include"
# A taxonomy key whose filter also keeps the rows without a value (`include_unset`).
INCLUDE_UNSET = "include-unset"
# Index arrays stored narrow where their values fit (layout.ArraySpec.narrow).
NARROW_INDEX = "narrow-index"
# Postings' impacts stored as uint8 codes into impact_levels.bin (layout.ArraySpec.codes).
IMPACT_CODES = "impact-codes"
# The display store's blocks are deflated with display_dictionary.bin as a preset dictionary
# (layout.DICTIONARY_ARRAYS): a reader without it cannot inflate one.
DISPLAY_DICTIONARY = "display-dictionary"
# The rescoring model's query encoder is a GGUF file outside the bundle (rescore.py).
RESCORE_GGUF = "rescore-gguf"

KNOWN_FEATURES = frozenset(
    {AUTO_INCLUDE, INCLUDE_UNSET, NARROW_INDEX, IMPACT_CODES, DISPLAY_DICTIONARY, RESCORE_GGUF}
)
