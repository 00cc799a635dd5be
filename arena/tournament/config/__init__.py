"""A tournament's configuration: the YAML read, validated and fingerprinted (tournament.py), the
strict reader (reader.py), the sandbox (sandbox.py), stop-rule (stop.py) and cluster (cluster.py) sections."""
