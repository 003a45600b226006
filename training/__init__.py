"""Training, evaluation, tournaments and the ``kdenv`` command line."""
