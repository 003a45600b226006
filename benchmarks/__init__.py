"""The benchmarks, one module each with ``main(argv)``: ``kdenv bench NAME`` runs one."""
