"""The one package area that touches files: cassettes, their journals, and the shipped data folders."""
