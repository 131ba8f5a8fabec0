"""Query -> ranked, filtered, paginated hits (the `search_docs` semantics), in pipeline order:

- analysis: `analyzer` (terms and bigrams, shared with the builder), `languages` (code-fence
  language names), `intent` (what a query says about itself: named taxonomy values, its class);
- full text: `lexical` over the impact-ordered postings, widened by `half`, ranked by
  `selection`, in the reusable arrays of `workspace`;
- vectors: `embedding` (the query embedder; `static_model`, `openai_client` providers) and
  `vectors` (exact or IVF search);
- `fusion` of the two lists, optional `rerank` by a chat model, the `passage` a hit is about;
- the site's shape: `versions` (the latest release by default, other versions folded into
  `also_in`), `roles` (the page-role prior that yields to the query);
- `engine`: the `Searcher` that runs these steps, with the `options` a server gives it;
  `explain`: the parts of one hit's score; `budget`: the response budget (`max_tokens`) every
  tool's answer is cut to.
"""
