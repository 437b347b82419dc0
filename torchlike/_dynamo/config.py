"""torch._dynamo.config: the settings scripts touch."""
suppress_errors = False      # True: a graph break falls back to eager without the warning
cache_size_limit = 8         # programs per compiled callable before it is run eagerly for good
recompile_limit = 8
verbose = False
