"""The exchange model: requests, responses and their bodies as frozen values, the JSON text they keep,
what a head may hold, content codings, hop-by-hop headers and origins."""
