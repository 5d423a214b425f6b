"""Example rule files, shipped with yz so `example:NAME` finds them from any folder."""
