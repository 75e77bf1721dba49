"""Clients of the online session server: a seat over the protocol, and the terminal."""
