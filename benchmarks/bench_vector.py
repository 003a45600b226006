"""Vector env speed benchmark (same as `kdenv bench vector`)."""

from agents.vector_bench import main

if __name__ == "__main__":
    raise SystemExit(main())
