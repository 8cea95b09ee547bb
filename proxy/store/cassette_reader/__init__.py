"""Reading cassettes from disk. The entry points: `loading.load_cassette` (a cassette whole, the journal
of a recording that did not stop cleanly folded in first) and `streaming.stream_cassette` (one exchange
at a time, for `check`); both read the parse cache when it has the file, else the YAML."""
