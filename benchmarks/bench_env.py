"""Env speed benchmark (same as `kdenv bench env`): our AEC turns/s against connect_four_v3's."""

from kdenv.env_bench import main

if __name__ == "__main__":
    raise SystemExit(main())
