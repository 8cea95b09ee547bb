"""The rules: rules as data (ruleset, endpoints, shapes, project config), the engine that runs them,
the checks they name and the findings they make."""
