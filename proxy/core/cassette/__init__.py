"""The cassette format: the YAML document and its migrations, the safe YAML reader, and the fast
readers behind one contract: the same result as the safe reader, or step aside."""
