"""Games between players and what they say: the schedule, the worker pool, tournaments, the evaluation of a
policy during training, win rates and means with CIs, ratings, and the reports."""
