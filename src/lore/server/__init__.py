"""The online session server: session masters, the store, the protocol, the ASGI app."""
