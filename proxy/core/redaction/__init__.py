"""Redaction: the policy of what is secret, replacing it with placeholders, and scrubbing its echoes."""
