"""``lore lsp``: a language server for Lore (the Language Server Protocol, over stdio).

The server (``server``) answers an editor from a long-lived program model (``model``):
parsed files kept by their text, and the bodies of unchanged imported files checked once.
The features are plain functions of a checked program (``navigation``, ``hover``,
``completion``, ``outline``, ``actions``), so tests can call them without a server.
"""
