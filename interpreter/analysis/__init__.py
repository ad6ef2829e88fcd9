"""Many matches and what they say: ``simulate`` (one match, and a run of many), ``summary``
(a run's statistics, tables and figure), ``compare`` (two runs), ``sweep`` (every combination of
variants, options and player counts; ``sweep_ray`` its Ray backend), ``ladder`` (round-robin
ratings of agents), the statistics they share (``stats``, ``match_counts``), the spec's
invariants checked on played matches (``invariants``), and the one pool of worker processes
they run in (``pool``)."""
