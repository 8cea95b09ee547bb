"""The web UI's pure part: the filter a page (or a script) asks the traffic index for."""
