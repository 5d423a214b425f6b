"""The built-in rule sets, one YAML file each (read with importlib.resources)."""
