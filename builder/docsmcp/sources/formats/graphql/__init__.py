"""GraphQL schemas (SDL: `.graphql`, `.graphqls`, `.gql`) as the reference a GraphQL docs
explorer shows: sdl_lex (tokens), sdl_parse (type-system definitions), sdl_page (the page and
its API entries)."""
