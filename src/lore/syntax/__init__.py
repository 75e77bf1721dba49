"""Source files, tokens, the parser, the AST and the formatter (no meaning yet)."""
