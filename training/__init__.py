"""Training and measuring players, and the ``kdenv`` command line: ``ppo/`` trains, ``arena/`` plays games
between players and reports on them, and the command-line modules here (``cli``, ``train_cli``,
``tournament_cli``, ``play``, ``bench``) drive both."""
