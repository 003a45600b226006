"""Engine speed benchmark (same as `kdenv bench engine`)."""

from kdenv.bench import main

if __name__ == "__main__":
    raise SystemExit(main())
