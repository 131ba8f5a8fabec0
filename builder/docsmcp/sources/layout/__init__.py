"""What a docs tree's folders mean: versions, variants (frameworks, languages of code),
translations, and the folders of each value recorded in the bundle.
"""
