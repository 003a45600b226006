"""Games between players and what they say: the schedule, one game in a worker, the backends that run the games
(this process, a worker pool, Ray), the output folder, tournaments, the evaluation of a policy during training,
win rates and means with CIs, ratings, and the reports."""
