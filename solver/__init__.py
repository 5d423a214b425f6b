"""The exact DP solver for any rule set yz can express."""
