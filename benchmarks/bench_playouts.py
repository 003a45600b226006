"""Playout speed benchmark (same as `kdenv bench playouts`)."""

from agents.bench import main

if __name__ == "__main__":
    raise SystemExit(main())
