"""A tournament, in the order it happens: its configuration (config/), the schedule of games
(schedule/), and running them on local workers or a Dask cluster (run/)."""
