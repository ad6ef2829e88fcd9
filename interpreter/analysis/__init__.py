"""Many matches and what they say: ``simulate`` (bot matches of one spec, their statistics,
tables, plots and comparisons), ``sweep`` (every combination of variants, options and player
counts; ``sweep_ray`` its Ray backend), ``ladder`` (round-robin ratings of agents), the
statistics they share (``stats``, ``match_counts``), the spec's invariants checked on played
matches (``invariants``), and the one pool of worker processes they run in (``pool``)."""
