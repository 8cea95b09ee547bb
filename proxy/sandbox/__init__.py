"""The sandbox: an in-memory stand-in for the real commerce service, built from the documentation.

It imports nothing from the rules, so checking its traffic against them is a real test of both.
"""
