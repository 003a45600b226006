"""Tournament speed on Ray against the local backend (same as `kdenv bench ray`)."""

from training.arena.bench_ray import main

if __name__ == "__main__":
    raise SystemExit(main())
