"""Reading cassettes from disk."""
